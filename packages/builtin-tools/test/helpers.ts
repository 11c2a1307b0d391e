import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolDefinition, ToolHandlerExtra, ToolResult, WorkspaceGrant } from "@agent-lattice/core";
import { afterEach } from "vitest";
import { type BuiltinToolsOptions, createBuiltinTools } from "../src/index.js";

const temps: string[] = [];

/** A fresh directory under os.tmpdir() (realpath'd: /tmp may itself be a symlink), removed after the test. */
export function tempDir(prefix = "bt-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}

/**
 * A fresh directory outside /tmp when the machine has /var/tmp. The sandbox gives every command a private, empty
 * /tmp, which would hide a layout under /tmp; escape tests need the outside files visible and read-only, as the
 * host's real files are.
 */
export function hostTempDir(prefix = "bt-"): string {
  const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
  const dir = realpathSync(mkdtempSync(join(base, prefix)));
  temps.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export type Tools = Record<string, ToolDefinition>;

export function toolsFor(options: BuiltinToolsOptions): Tools {
  return Object.fromEntries(createBuiltinTools(options).map(definition => [definition.name, definition]));
}

export interface CallOptions {
  grants?: WorkspaceGrant[];
  signal?: AbortSignal;
  /** Host context data (tools must never read grants from here). */
  context?: unknown;
}

/** Calls a tool's handler the way the agent loop does, after validating the input with its schema. */
export async function call(
  definition: ToolDefinition | undefined,
  input: unknown,
  options: CallOptions = {},
): Promise<ToolResult> {
  if (!definition) throw new Error("no such tool");
  const parsed = (definition.schema as { parse(value: unknown): unknown }).parse(input);
  // Only the fields the built-in tools read are real; the rest of ToolHandlerExtra is inert.
  const extra = {
    context: options.context,
    signal: options.signal ?? new AbortController().signal,
    toolUseId: "toolu_test",
    sessionId: "session-test",
    permissions: options.grants ? { workspaceGrants: options.grants } : {},
    emit: async () => undefined,
    run: {
      runId: "run-test",
      tracer: undefined,
      requestTimeoutMs: undefined,
      interrupted: new AbortController().signal,
    },
  } as unknown as ToolHandlerExtra;
  return definition.handler(parsed, extra);
}

export function text(result: ToolResult): string {
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

export function denial(result: ToolResult): Record<string, unknown> {
  return JSON.parse(text(result)) as Record<string, unknown>;
}

/**
 * Everything under `dir`: paths with file contents, modes, owners and link targets, so two snapshots are
 * equal exactly when nothing was created, removed, renamed, retargeted, re-owned or changed (byte for byte).
 */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (path: string, relative: string) => {
    const info = lstatSync(path);
    const meta = `${info.uid}:${info.gid}:${(info.mode & 0o7777).toString(8)}`;
    if (info.isSymbolicLink()) out[relative] = `link:${readlinkSync(path)}`;
    else if (info.isDirectory()) {
      out[relative] = `dir:${meta}`;
      for (const name of readdirSync(path).sort()) visit(join(path, name), `${relative}/${name}`);
    } else out[relative] = `file:${meta}:${readFileSync(path).toString("base64")}`;
  };
  visit(dir, ".");
  return out;
}

/** Pids of live (not zombie) processes in a process group, from /proc (Linux). */
export function liveGroupMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") live.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return live;
}

export async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise(resolve => setTimeout(resolve, 50));
  }
  return check();
}

export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether a process with exactly this command line is alive (not a zombie). */
export function processRunning(commandLine: string): boolean {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmd === commandLine && state !== "Z") return true;
    } catch {
      // gone
    }
  }
  return false;
}
