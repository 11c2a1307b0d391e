import { type ToolDefinition, tool } from "@agent-lattice/core";
import type { ToolContext } from "../context.js";
import { type InferInput, inputSchema } from "../input-schema.js";

const schema = inputSchema({
  file_path: {
    type: "string",
    minLength: 1,
    description: "Path of the file to write (absolute, or relative to the working directory)",
  },
  content: { type: "string", description: "The complete new content of the file" },
});

export type WriteInput = InferInput<typeof schema>;

export function createWriteTool(context: ToolContext): ToolDefinition<WriteInput> {
  return tool(
    "Write",
    "Writes a file with the given content, replacing it if it exists and creating missing parent directories. " +
      "Allowed only inside your workspace roots and task-scoped write grants; elsewhere it returns a " +
      "permission_denied result. Prefer Edit for changing part of an existing file.",
    schema,
    // The implementation (and what only it needs) loads on the first call: createAgent() builds these tools
    // for every session, and most sessions never call most of them.
    async (input, extra) => (await import("./write-run.js")).runWrite(context, input, extra),
  );
}
