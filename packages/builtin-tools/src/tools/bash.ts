import { type ToolDefinition, type ToolResult, tool } from "@agent-lattice/core";
import { checkFindings } from "../bash/check.js";
import { findWrites } from "../bash/parse-writes.js";
import { loadShellParser } from "../bash/parser.js";
import { type RunResult, runCommand } from "../bash/run.js";
import { bubblewrapPrefix, bubblewrapStatus } from "../bash/sandbox.js";
import { type ToolContext, writeScope } from "../context.js";
import { permissionDenied } from "../denial.js";
import { allowedRootsOf } from "../grants.js";
import { type InferInput, inputSchema } from "../input-schema.js";

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;

const schema = inputSchema({
  command: { type: "string", minLength: 1, description: "The shell command to run (bash -c)" },
  timeout: {
    type: "integer",
    minimum: 1,
    maximum: BASH_MAX_TIMEOUT_MS,
    optional: true,
    description: `Timeout in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS})`,
  },
  description: {
    type: "string",
    optional: true,
    description: "A short description of what the command does (5-10 words)",
  },
});

export function createBashTool(context: ToolContext): ToolDefinition<InferInput<typeof schema>> {
  const sandboxed = context.bash.sandbox === "bubblewrap";
  return tool(
    "Bash",
    `Runs a shell command with bash -c in ${context.cwdLabel} (each call starts there; cd does not persist). ` +
      "Returns the exit code, stdout and stderr (each cut in the middle past " +
      `${context.bash.maxOutputBytes} bytes). Times out after \`timeout\` ms (default ${BASH_DEFAULT_TIMEOUT_MS}); ` +
      "on timeout or cancel the command and every process it started are killed, and background processes " +
      "are killed when the command ends. Commands that write files (redirections, tee, cp, mv, rm, touch, " +
      "mkdir, sed -i, …) may write only inside your workspace roots and task-scoped write grants; a write " +
      "elsewhere, or to a path only known at run time, is refused with permission_denied before anything runs." +
      (sandboxed ? " Commands run in a sandbox where everything else is read-only." : ""),
    schema,
    async (input, extra) => {
      await context.ensureCwd();
      const scope = writeScope(context, extra);
      const parser = await loadShellParser();
      const env = context.bash.env;
      const findings = findWrites(input.command, {
        cwd: context.cwd,
        home: env.HOME,
        cdpath: env.CDPATH,
        parser,
      });
      const denials = checkFindings(findings, scope, sandboxed);
      const allowedRoots = allowedRootsOf(scope);
      const first = denials[0];
      if (first !== undefined) {
        return permissionDenied({
          tool: "Bash",
          requestedPath: first.requestedPath,
          resolvedPath: first.resolvedPath,
          allowedRoots,
          reason: first.reason,
          unresolvable: first.unresolvable,
          command: input.command,
          deniedWrites: denials.map(({ requestedPath, resolvedPath, reason }) => ({
            requestedPath,
            resolvedPath,
            reason,
          })),
        });
      }
      let prefix: string[] | undefined;
      if (sandboxed) {
        const status = bubblewrapStatus();
        if (!status.usable) {
          return {
            content: `Bash is configured to run commands in a bubblewrap sandbox, but ${status.reason}. The command was not run. The host must install bubblewrap (Debian: apt-get install bubblewrap) or turn the sandbox off.`,
            isError: true,
          };
        }
        prefix = bubblewrapPrefix(allowedRoots, context.cwd);
      }
      const result = await runCommand({
        command: input.command,
        cwd: context.cwd,
        env: context.bash.env,
        timeoutMs: input.timeout ?? BASH_DEFAULT_TIMEOUT_MS,
        signal: extra.signal,
        maxOutputBytes: context.bash.maxOutputBytes,
        ...(prefix ? { prefix } : {}),
      });
      return formatResult(result, input.timeout ?? BASH_DEFAULT_TIMEOUT_MS);
    },
  );
}

function formatResult(result: RunResult, timeoutMs: number): ToolResult {
  const lines: string[] = [];
  if (result.timedOut)
    lines.push(`Command timed out after ${timeoutMs} ms; it and every process it started were killed.`);
  else if (result.aborted) lines.push("Command was cancelled; it and every process it started were killed.");
  else if (result.exitSignal) lines.push(`Command was killed by ${result.exitSignal}.`);
  else lines.push(`Exit code: ${result.exitCode}`);
  lines.push(section("stdout", result.stdout, result.stdoutCut));
  lines.push(section("stderr", result.stderr, result.stderrCut));
  return { content: lines.filter(Boolean).join("\n"), isError: result.timedOut || result.aborted };
}

function section(name: string, text: string, cut: number): string {
  if (text === "") return "";
  const note = cut > 0 ? ` (${cut} bytes cut from the middle)` : "";
  return `<${name}${note}>\n${text.endsWith("\n") ? text.slice(0, -1) : text}\n</${name}>`;
}
