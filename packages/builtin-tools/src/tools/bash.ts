import { type ToolDefinition, tool } from "@agent-lattice/core";
import type { ToolContext } from "../context.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS } from "./limits.js";

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

export type BashInput = InferInput<typeof schema>;

export function createBashTool(context: ToolContext): ToolDefinition<BashInput> {
  return tool(
    "Bash",
    `Runs a shell command with bash -c in ${context.cwdLabel} (each call starts there; cd does not persist). ` +
      "Returns the exit code, stdout and stderr (each cut in the middle past " +
      `${context.bash.maxOutputBytes} bytes). Times out after \`timeout\` ms (default ${BASH_DEFAULT_TIMEOUT_MS}); ` +
      "every process the command started is killed when it ends, times out or is cancelled. Writes are allowed " +
      "only inside your workspace roots and task-scoped write grants: a write elsewhere is refused with " +
      "permission_denied. Where an OS sandbox is available everything else is read-only and /tmp is private " +
      "scratch space; without it, commands whose writes cannot be determined beforehand (interpreters, build " +
      "tools, variables in write targets) are refused, with the reason. The environment holds PATH, HOME (the " +
      "working directory) and locale settings only.",
    schema,
    // The implementation (and what only it needs) loads on the first call: createAgent() builds these tools
    // for every session, and most sessions never call most of them.
    async (input, extra) => (await import("./bash-run.js")).runBash(context, input, extra),
  );
}
