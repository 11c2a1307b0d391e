import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type ToolDefinition, tool } from "@agent-lattice/core";
import { type ToolContext, writeScope } from "../context.js";
import { permissionDenied } from "../denial.js";
import { checkWritePath } from "../grants.js";
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
      const check = checkWritePath(input.file_path, writeScope(context, extra));
      if (!check.allowed) return permissionDenied({ tool: "Write", ...check });
      // Write through the checked physical path, so a symlink swapped in after the check is not followed.
      const target = check.resolvedPath;
      try {
        const existed = await stat(target).then(
          info => {
            if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
            return true;
          },
          (error: NodeJS.ErrnoException) => {
            if (error.code === "ENOENT") return false;
            throw error;
          },
        );
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, input.content, "utf8");
        const lines = input.content === "" ? 0 : input.content.split("\n").length;
        const where = target === input.file_path ? target : `${input.file_path} (${target})`;
        return {
          content: `${existed ? "Overwrote" : "Created"} ${where}: ${plural(Buffer.byteLength(input.content), "byte")}, ${plural(lines, "line")}.`,
        };
      } catch (error) {
        return { content: `Cannot write ${input.file_path}: ${fsErrorMessage(error)}.`, isError: true };
      }
    },
  );
}
