import type { ToolHandlerExtra, ToolResult } from "@agent-lattice/core";
import { UnsafeFileError, writeFileWithinScope } from "@agent-lattice/core/internal";
import { type ToolContext, writeScope } from "../context.js";
import { permissionDenied } from "../denial.js";
import { fsErrorMessage, plural } from "../text.js";
import type { WriteInput } from "./write.js";

/** The Write tool's handler: loaded on the tool's first call, not when the tools are created. */
export async function runWrite(
  context: ToolContext,
  input: WriteInput,
  extra: ToolHandlerExtra,
): Promise<ToolResult> {
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
}

/** The message of an fs error, or of a refusal of the safe open (FIFO, device, hard link, directory). */
export function unsafeMessage(error: unknown): string {
  if (error instanceof UnsafeFileError) return error.message;
  return fsErrorMessage(error);
}
