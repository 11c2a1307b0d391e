import type { ShellParser } from "./parse-writes.js";

/**
 * The shell parser (unbash) is loaded on the first Bash call, not when the package is imported, so agents
 * that never run a command do not pay for it (~25 ms and ~0.5 MB of JavaScript).
 */
let loading: Promise<ShellParser> | undefined;

export function loadShellParser(): Promise<ShellParser> {
  loading ??= import("unbash").then(module => ({ parse: module.parse, forEachChild: module.forEachChild }));
  return loading;
}
