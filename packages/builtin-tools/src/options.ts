import { isAbsolute, resolve } from "node:path";
import { InvalidOptionError } from "@agent-lattice/core";

/** The tools this package provides, in the order they are returned. */
export const BUILTIN_TOOL_NAMES = ["Read", "Write", "Edit", "LS", "Glob", "Grep", "Bash"] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

export interface BashToolOptions {
  /**
   * "bubblewrap" runs every command under `bwrap` with the whole file system read-only except the writable
   * roots and granted roots (Linux, needs the `bubblewrap` package). Default "none": static write detection
   * only. When bwrap is requested but not usable, Bash refuses to run rather than running unsandboxed.
   */
  sandbox?: "none" | "bubblewrap";
  /** Environment of the commands (default process.env). Its HOME expands `~` and `$HOME` in write targets. */
  env?: Record<string, string | undefined>;
  /** Bytes of stdout and of stderr kept per command (default 30000 each: the first two thirds and the last third); the rest is cut with a note. */
  maxOutputBytes?: number;
}

export interface BuiltinToolsOptions {
  /** Base of relative paths and the Bash working directory (default process.cwd()). */
  cwd?: string;
  /**
   * Roots where Write, Edit and Bash may write (relative entries resolve against cwd). Default [cwd].
   * Pass [] to allow writes only through task-scoped grants.
   */
  allowedDirectories?: string[];
  /** Options of the Bash tool, or false to leave Bash out. */
  bash?: BashToolOptions | false;
  /** A subset of the tools to return (default all seven). */
  tools?: BuiltinToolName[];
}

export interface ResolvedBashOptions {
  sandbox: "none" | "bubblewrap";
  env: Record<string, string | undefined>;
  maxOutputBytes: number;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 30_000;

const TOOLS_KEYS = new Set(["cwd", "allowedDirectories", "bash", "tools"]);
const BASH_KEYS = new Set(["sandbox", "env", "maxOutputBytes"]);

/**
 * Strict option validation, as in core: an unknown key or a wrong type throws at assembly time with the same
 * message format, so a typo never silently widens or narrows what an agent may do.
 */
export function assertKnownOptions(
  options: object | undefined,
  known: ReadonlySet<string>,
  label: string,
): void {
  if (options === undefined) return;
  if (options === null || typeof options !== "object") {
    throw new InvalidOptionError(
      `${label}: expected an options object, got ${options === null ? "null" : typeof options}.`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!known.has(key)) {
      throw new InvalidOptionError(
        `${label}: unknown option "${key}". Check for a typo, or upgrade the SDK if this option was added in a newer version.`,
      );
    }
  }
}

export function resolveBashOptions(bash: BashToolOptions | undefined, label: string): ResolvedBashOptions {
  assertKnownOptions(bash, BASH_KEYS, `${label}.bash`);
  const sandbox = bash?.sandbox ?? "none";
  if (sandbox !== "none" && sandbox !== "bubblewrap") {
    throw new InvalidOptionError(
      `${label}.bash.sandbox must be "none" or "bubblewrap", got ${JSON.stringify(sandbox)}.`,
    );
  }
  const max = bash?.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (!Number.isInteger(max) || max <= 0) {
    throw new InvalidOptionError(
      `${label}.bash.maxOutputBytes must be a positive integer, got ${JSON.stringify(max)}.`,
    );
  }
  if (bash?.env !== undefined && (bash.env === null || typeof bash.env !== "object")) {
    throw new InvalidOptionError(`${label}.bash.env must be an object of environment variables.`);
  }
  return { sandbox, env: bash?.env ?? process.env, maxOutputBytes: max };
}

export interface ResolvedToolsOptions {
  cwd: string;
  roots: string[];
  bash: ResolvedBashOptions | false;
  tools: BuiltinToolName[];
}

export function resolveToolsOptions(
  options: BuiltinToolsOptions | undefined,
  label: string,
): ResolvedToolsOptions {
  assertKnownOptions(options, TOOLS_KEYS, label);
  const cwdOption = options?.cwd;
  if (cwdOption !== undefined && (typeof cwdOption !== "string" || cwdOption === "")) {
    throw new InvalidOptionError(`${label}.cwd must be a non-empty path string.`);
  }
  const cwd = resolve(cwdOption ?? process.cwd());
  const dirs = options?.allowedDirectories;
  if (
    dirs !== undefined &&
    (!Array.isArray(dirs) || dirs.some(dir => typeof dir !== "string" || dir === ""))
  ) {
    throw new InvalidOptionError(`${label}.allowedDirectories must be an array of directory paths.`);
  }
  const roots = (dirs ?? [cwd]).map(dir => (isAbsolute(dir) ? dir : resolve(cwd, dir)));
  const tools = options?.tools ?? [...BUILTIN_TOOL_NAMES];
  if (!Array.isArray(tools) || tools.some(name => !BUILTIN_TOOL_NAMES.includes(name))) {
    throw new InvalidOptionError(
      `${label}.tools must list tool names among ${BUILTIN_TOOL_NAMES.join(", ")}.`,
    );
  }
  const bash = options?.bash === false ? false : resolveBashOptions(options?.bash, label);
  return { cwd, roots, bash, tools };
}
