import type { ToolHandlerExtra, ToolResult } from "@agent-lattice/core";
import { allowedRootsOf, coveringRoot, resolvePhysical } from "@agent-lattice/core/internal";
import { type BashDenial, checkFindings } from "../bash/check.js";
import { bashEnvironment } from "../bash/environment.js";
import { findWrites } from "../bash/parse-writes.js";
import { loadShellParser } from "../bash/parser.js";
import { type RunResult, runCommand } from "../bash/run.js";
import { bubblewrapPrefix, probeBubblewrap } from "../bash/sandbox.js";
import { type ToolContext, writeScope } from "../context.js";
import { permissionDenied } from "../denial.js";
import type { BashInput } from "./bash.js";
import { BASH_DEFAULT_TIMEOUT_MS } from "./limits.js";

/** How commands run: in the bubblewrap sandbox, or checked by the analyser alone (fail closed). */
export type BashMode = { sandboxed: true } | { sandboxed: false; why: string };

/** The Bash tool's handler: loaded on the tool's first call, not when the tools are created. */
export async function runBash(
  context: ToolContext,
  input: BashInput,
  extra: ToolHandlerExtra,
): Promise<ToolResult> {
  await context.ensureCwd();
  const mode = await bashMode(context);
  if ("refusal" in mode) return { content: mode.refusal, isError: true };
  const scope = writeScope(context, extra);
  const parser = await loadShellParser();
  const env = bashEnvironment(context);
  const allowedRoots = allowedRootsOf(scope);
  const findings = findWrites(input.command, {
    cwd: context.cwd,
    home: env.HOME,
    cdpath: env.CDPATH,
    unsafePath: mode.sandboxed ? undefined : unsafeSearchPath(env.PATH, allowedRoots),
    parser,
  });
  const denials = checkFindings(findings, scope, mode.sandboxed);
  const known = denials.filter(denial => !denial.unresolvable);
  const unmodeled = denials.filter(denial => denial.unresolvable);
  if (known.length > 0 || unmodeled.length > 0) {
    const approved =
      known.length === 0 &&
      !mode.sandboxed &&
      context.bash.approveUnmodeled !== undefined &&
      (await context.bash.approveUnmodeled({
        command: input.command,
        cwd: context.cwd,
        reasons: unmodeled.map(denial => denial.reason),
      })) === true;
    if (!approved) return denied(input.command, known.length > 0 ? known : unmodeled, allowedRoots, mode);
  }
  const prefix = mode.sandboxed
    ? bubblewrapPrefix(allowedRoots, context.cwd, { network: context.bash.network })
    : undefined;
  const result = await runCommand({
    command: input.command,
    cwd: context.cwd,
    env,
    timeoutMs: input.timeout ?? BASH_DEFAULT_TIMEOUT_MS,
    signal: extra.signal,
    maxOutputBytes: context.bash.maxOutputBytes,
    ...(prefix ? { prefix } : {}),
  });
  return formatResult(result, input.timeout ?? BASH_DEFAULT_TIMEOUT_MS, mode, allowedRoots);
}

/** Which mode this context runs in, or why Bash refuses to run at all. */
async function bashMode(context: ToolContext): Promise<BashMode | { refusal: string }> {
  const setting = context.bash.sandbox;
  if (setting === "off") return { sandboxed: false, why: "the host turned the sandbox off (sandbox: false)" };
  const status = await probeBubblewrap();
  if (status.usable) return { sandboxed: true };
  if (setting === "required" || !context.bash.network) {
    const needs = setting === "required" ? "sandbox: true" : "network: false";
    return {
      refusal:
        `Bash is configured to require the bubblewrap sandbox (${needs}), but ${status.reason}. The command was not ` +
        "run. The host must install bubblewrap (or allow user namespaces), or change the Bash options.",
    };
  }
  return { sandboxed: false, why: `no OS sandbox is available here (${status.reason})` };
}

/**
 * Without the sandbox, a command name is looked up in PATH: an entry that is relative or lies inside a writable
 * root lets the agent plant a program under a trusted name (`ls`), so then no command name is trusted.
 */
function unsafeSearchPath(path: string | undefined, allowedRoots: readonly string[]): string | undefined {
  for (const entry of (path ?? "").split(":")) {
    if (entry === "" || !entry.startsWith("/")) return `PATH has the relative entry ${JSON.stringify(entry)}`;
    let physical: string;
    try {
      physical = resolvePhysical(entry);
    } catch {
      continue;
    }
    if (coveringRoot(physical, allowedRoots) !== undefined)
      return `PATH has ${entry}, which this agent can write to (a program there could replace any command)`;
  }
  return undefined;
}

function denied(command: string, denials: BashDenial[], allowedRoots: string[], mode: BashMode): ToolResult {
  const first = denials[0]!;
  return permissionDenied({
    tool: "Bash",
    requestedPath: first.requestedPath,
    resolvedPath: first.resolvedPath,
    allowedRoots,
    reason: first.reason,
    unresolvable: first.unresolvable,
    command,
    sandboxed: mode.sandboxed,
    ...(mode.sandboxed ? {} : { mode: mode.why }),
    deniedWrites: denials.map(({ requestedPath, resolvedPath, reason }) => ({
      requestedPath,
      resolvedPath,
      reason,
    })),
  });
}

function formatResult(
  result: RunResult,
  timeoutMs: number,
  mode: BashMode,
  allowedRoots: string[],
): ToolResult {
  const lines: string[] = [];
  if (result.timedOut)
    lines.push(`Command timed out after ${timeoutMs} ms; it and every process it started were killed.`);
  else if (result.aborted) lines.push("Command was cancelled; it and every process it started were killed.");
  else if (result.exitSignal) lines.push(`Command was killed by ${result.exitSignal}.`);
  else lines.push(`Exit code: ${result.exitCode}`);
  lines.push(section("stdout", result.stdout, result.stdoutCut));
  lines.push(section("stderr", result.stderr, result.stderrCut));
  if (mode.sandboxed && /Read-only file system/.test(result.stderr)) {
    lines.push(
      `[Sandbox: the command runs in an OS sandbox where only ${allowedRoots.join(", ") || "granted roots"} ` +
        "(and a private /tmp) can be written; everything else is read-only. Write inside the workspace instead.]",
    );
  }
  return { content: lines.filter(Boolean).join("\n"), isError: result.timedOut || result.aborted };
}

function section(name: string, text: string, cut: number): string {
  if (text === "") return "";
  const note = cut > 0 ? ` (${cut} bytes cut from the middle)` : "";
  return `<${name}${note}>\n${text.endsWith("\n") ? text.slice(0, -1) : text}\n</${name}>`;
}
