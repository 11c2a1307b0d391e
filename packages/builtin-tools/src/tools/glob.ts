import { type ToolDefinition, tool } from "@agent-lattice/core";
import type { ToolContext } from "../context.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { DEFAULT_SKIPPED_DIRECTORIES } from "../walk.js";
import { GLOB_MAX_RESULTS } from "./limits.js";

const schema = inputSchema({
  pattern: {
    type: "string",
    minLength: 1,
    description: 'Glob pattern, e.g. "**/*.ts" or "src/**/*.{js,jsx}"',
  },
  path: {
    type: "string",
    optional: true,
    description: "Directory to search in (default: the working directory)",
  },
});

export type GlobInput = InferInput<typeof schema>;

export function createGlobTool(context: ToolContext): ToolDefinition<GlobInput> {
  return tool(
    "Glob",
    "Finds files by glob pattern (`*`, `**`, `?`, `[...]`, `{a,b}`; dotfiles included) under `path` (default: the " +
      `working directory). Returns absolute paths, most recently modified first, at most ${GLOB_MAX_RESULTS}. ` +
      `Does not descend into ${[...DEFAULT_SKIPPED_DIRECTORIES].join(", ")} unless the search starts inside them, ` +
      "and does not follow symlinked directories. Reads any path the process can read.",
    schema,
    // The implementation (and what only it needs) loads on the first call: createAgent() builds these tools
    // for every session, and most sessions never call most of them.
    async (input, extra) => (await import("./glob-run.js")).runGlob(context, input, extra),
    { isConcurrencySafe: () => true },
  );
}
