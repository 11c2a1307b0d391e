import { type ToolDefinition, tool } from "@agent-lattice/core";
import { UnsafeFileError, writeFileWithinScope } from "@agent-lattice/core/internal";
import { type ToolContext, writeScope } from "../context.js";
import { permissionDenied } from "../denial.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { fsErrorMessage, plural } from "../text.js";

const schema = inputSchema({
  file_path: {
    type: "string",
    minLength: 1,
    description: "Path of the file to write (absolute, or relative to the working directory)",
  },
  content: { type: "string", description: "The complete new content of the file" },
});

export function createWriteTool(context: ToolContext): ToolDefinition<InferInput<typeof schema>> {
  return tool(
    "Write",
    "Writes a file with the given content, replacing it if it exists and creating missing parent directories. " +
      "Allowed only inside your workspace roots and task-scoped write grants; elsewhere it returns a " +
      "permission_denied result. Prefer Edit for changing part of an existing file.",
    schema,
    async (input, extra) => {
      await context.ensureCwd();
      try {
        // Decided on the descriptor actually opened (core's safe open), not on the path string.
        const result = writeFileWithinScope(input.file_path, input.content, writeScope(context, extra));
        if (!result.ok) return permissionDenied({ tool: "Write", ...result.denial });
        const lines = input.content === "" ? 0 : input.content.split("\n").length;
        const where = result.path === input.file_path ? result.path : `${input.file_path} (${result.path})`;
        return {
          content: `${result.existed ? "Overwrote" : "Created"} ${where}: ${plural(result.bytes, "byte")}, ${plural(lines, "line")}.`,
        };
      } catch (error) {
        return { content: `Cannot write ${input.file_path}: ${unsafeMessage(error)}.`, isError: true };
      }
    },
  );
}

/** The message of an fs error, or of a refusal of the safe open (FIFO, device, hard link, directory). */
export function unsafeMessage(error: unknown): string {
  if (error instanceof UnsafeFileError) return error.message;
  return fsErrorMessage(error);
}
