import { type ToolDefinition, tool } from "@agent-lattice/core";
import type { ToolContext } from "../context.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { LS_MAX_ENTRIES } from "./limits.js";

const schema = inputSchema({
  path: {
    type: "string",
    optional: true,
    description:
      "Directory to list (absolute, or relative to the working directory; default: the working directory)",
  },
  ignore: {
    type: "string[]",
    optional: true,
    description: 'Glob patterns of names to leave out, e.g. ["*.log", "dist"]',
  },
});

export type LsInput = InferInput<typeof schema>;

export function createLsTool(context: ToolContext): ToolDefinition<LsInput> {
  return tool(
    "LS",
    "Lists one directory: entries sorted by name, directories marked with a trailing `/`, symlinks shown as " +
      `\`name -> target\`. At most ${LS_MAX_ENTRIES} entries. Use Glob to search recursively. Reads any path the ` +
      "process can read.",
    schema,
    // The implementation (and what only it needs) loads on the first call: createAgent() builds these tools
    // for every session, and most sessions never call most of them.
    async input => (await import("./ls-run.js")).runLs(context, input),
    { isConcurrencySafe: () => true },
  );
}
