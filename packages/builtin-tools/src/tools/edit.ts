import { type ToolDefinition, tool } from "@agent-lattice/core";
import type { ToolContext } from "../context.js";
import { type InferInput, inputSchema } from "../input-schema.js";

const schema = inputSchema({
  file_path: {
    type: "string",
    minLength: 1,
    description: "Path of the file to edit (absolute, or relative to the working directory)",
  },
  old_string: {
    type: "string",
    description: "The exact text to replace (must match the file exactly, whitespace included)",
  },
  new_string: { type: "string", description: "The text to put in its place (must differ from old_string)" },
  replace_all: {
    type: "boolean",
    optional: true,
    description: "Replace every occurrence instead of exactly one (default false)",
  },
});

export type EditInput = InferInput<typeof schema>;

export function createEditTool(context: ToolContext): ToolDefinition<EditInput> {
  return tool(
    "Edit",
    "Replaces exact text in a file. old_string must occur exactly once unless replace_all is true; include " +
      "enough surrounding lines to make it unique. An empty old_string creates a file that does not exist yet. " +
      "Allowed only inside your workspace roots and task-scoped write grants.",
    schema,
    // The implementation (and what only it needs) loads on the first call: createAgent() builds these tools
    // for every session, and most sessions never call most of them.
    async (input, extra) => (await import("./edit-run.js")).runEdit(context, input, extra),
  );
}
