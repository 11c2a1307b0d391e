import { type ToolDefinition, tool } from "@agent-lattice/core";
import type { ToolContext } from "../context.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { READ_DEFAULT_LIMIT, READ_MAX_LINE_CHARS } from "./limits.js";

const schema = inputSchema({
  file_path: {
    type: "string",
    minLength: 1,
    description: "Path of the file to read (absolute, or relative to the working directory)",
  },
  offset: {
    type: "integer",
    minimum: 1,
    optional: true,
    description: "Line number to start from (1-based). Use for large files",
  },
  limit: {
    type: "integer",
    minimum: 1,
    optional: true,
    description: `Number of lines to read (default ${READ_DEFAULT_LIMIT})`,
  },
});

export type ReadInput = InferInput<typeof schema>;

export function createReadTool(context: ToolContext): ToolDefinition<ReadInput> {
  return tool(
    "Read",
    "Reads a text file and returns its lines numbered like `cat -n` (line number, tab, text). Reads any path the " +
      `process can read. Returns up to ${READ_DEFAULT_LIMIT} lines from \`offset\` (1-based); page through large files ` +
      `with offset/limit. Lines longer than ${READ_MAX_LINE_CHARS} characters are cut. Binary files are refused. ` +
      "Use LS for directories.",
    schema,
    // The implementation (and what only it needs) loads on the first call: createAgent() builds these tools
    // for every session, and most sessions never call most of them.
    async (input, extra) => (await import("./read-run.js")).runRead(context, input, extra),
    { isConcurrencySafe: () => true },
  );
}
