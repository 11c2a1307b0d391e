import { type ToolDefinition, tool } from "@agent-lattice/core";
import type { ToolContext } from "../context.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { DEFAULT_SKIPPED_DIRECTORIES } from "../walk.js";
import { GREP_MAX_OUTPUT_CHARS } from "./limits.js";

const schema = inputSchema({
  pattern: {
    type: "string",
    minLength: 1,
    description: "Regular expression (JavaScript syntax) to search for in file contents",
  },
  path: {
    type: "string",
    optional: true,
    description: "File or directory to search (default: the working directory)",
  },
  glob: {
    type: "string",
    optional: true,
    description: 'Only search files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}"',
  },
  output_mode: {
    type: "string",
    enum: ["content", "files_with_matches", "count"],
    optional: true,
    description:
      '"files_with_matches" (default): paths; "content": matching lines; "count": matches per file',
  },
  "-i": { type: "boolean", optional: true, description: "Case-insensitive search" },
  "-n": {
    type: "boolean",
    optional: true,
    description: 'Show line numbers in "content" mode (default true)',
  },
  "-A": {
    type: "integer",
    minimum: 0,
    optional: true,
    description: 'Lines of context after each match ("content" mode)',
  },
  "-B": {
    type: "integer",
    minimum: 0,
    optional: true,
    description: 'Lines of context before each match ("content" mode)',
  },
  "-C": {
    type: "integer",
    minimum: 0,
    optional: true,
    description: 'Lines of context before and after each match ("content" mode)',
  },
  head_limit: {
    type: "integer",
    minimum: 1,
    optional: true,
    description: "Return only the first N lines or entries",
  },
});

export type GrepInput = InferInput<typeof schema>;

export function createGrepTool(context: ToolContext): ToolDefinition<GrepInput> {
  return tool(
    "Grep",
    "Searches file contents with a regular expression (JavaScript syntax, matched per line). output_mode " +
      '"files_with_matches" (default) lists matching files sorted by path; "content" shows matching lines ' +
      '(`path:line:text`, with -A/-B/-C context); "count" gives matching lines per file. Filter files with `glob`. ' +
      `Binary files and files over 20 MB are skipped; ${[...DEFAULT_SKIPPED_DIRECTORIES].join(", ")} are not searched ` +
      `unless \`path\` is inside them. Output is capped at ${GREP_MAX_OUTPUT_CHARS} characters; use head_limit to ` +
      "page. Reads any path the process can read.",
    schema,
    // The implementation (and what only it needs) loads on the first call: createAgent() builds these tools
    // for every session, and most sessions never call most of them.
    async (input, extra) => (await import("./grep-run.js")).runGrep(context, input, extra),
    { isConcurrencySafe: () => true },
  );
}
