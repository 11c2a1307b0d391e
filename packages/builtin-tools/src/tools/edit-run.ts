import type { ToolHandlerExtra, ToolResult } from "@agent-lattice/core";
import {
  closeOpened,
  type OpenedForWrite,
  openForWrite,
  readOpened,
  replaceOpened,
  UnsafeFileError,
} from "@agent-lattice/core/internal";
import { type ToolContext, writeScope } from "../context.js";
import { permissionDenied } from "../denial.js";
import { looksBinary, plural } from "../text.js";
import type { EditInput } from "./edit.js";
import { unsafeMessage } from "./write-run.js";

/** The Edit tool's handler: loaded on the tool's first call, not when the tools are created. */
export async function runEdit(
  context: ToolContext,
  input: EditInput,
  extra: ToolHandlerExtra,
): Promise<ToolResult> {
  await context.ensureCwd();
  if (input.old_string === input.new_string) {
    return {
      content:
        "old_string and new_string are identical, so there is nothing to change. Pass the new text in new_string.",
      isError: true,
    };
  }
  try {
    // Read and write through one descriptor whose real location was checked (core's safe open).
    const opened = openForWrite(input.file_path, writeScope(context, extra), {
      read: true,
      create: input.old_string === "",
    });
    if (!opened.ok) return permissionDenied({ tool: "Edit", ...opened.denial });
    const file = opened.file;
    try {
      return editOpened(file, input);
    } finally {
      closeOpened(file);
    }
  } catch (error) {
    if (error instanceof UnsafeFileError && error.code === "not_found") {
      return {
        content: `${input.file_path} does not exist. Use Write to create it (or Edit with an empty old_string).`,
        isError: true,
      };
    }
    return { content: `Cannot edit ${input.file_path}: ${unsafeMessage(error)}.`, isError: true };
  }
}

/** Bytes of a file Edit reads into memory; past this it refuses (counted as read, so a sparse file is bounded). */
export const EDIT_MAX_BYTES = 64 * 1024 * 1024;

function editOpened(file: OpenedForWrite, input: EditInput): ToolResult {
  if (!file.existed) {
    replaceOpened(file, input.new_string);
    return {
      content: `Created ${input.file_path} with ${plural(Buffer.byteLength(input.new_string), "byte")}.`,
    };
  }
  const current = readOpened(file, EDIT_MAX_BYTES);
  if (looksBinary(current.subarray(0, 8192))) {
    return {
      content: `${input.file_path} looks like a binary file; Edit changes text files only.`,
      isError: true,
    };
  }
  const text = current.toString("utf8");
  if (input.old_string === "") {
    if (text !== "")
      return {
        content: `${input.file_path} already exists and is not empty: an empty old_string only creates new files. Give the exact text to replace.`,
        isError: true,
      };
    replaceOpened(file, input.new_string);
    return {
      content: `Wrote ${plural(Buffer.byteLength(input.new_string), "byte")} into the empty file ${input.file_path}.`,
    };
  }
  const plan = planEdit(text, input.old_string, input.new_string);
  if (plan.count === 0) {
    return {
      content: `old_string was not found in ${input.file_path}. It must match exactly, including whitespace and indentation: Read the file and copy the text to replace.`,
      isError: true,
    };
  }
  if (plan.count > 1 && input.replace_all !== true) {
    return {
      content: `old_string matches ${plural(plan.count, "place")} in ${input.file_path}; it must match exactly once. Add surrounding lines to make it unique, or set replace_all: true to replace all ${plan.count}.`,
      isError: true,
    };
  }
  replaceOpened(file, text.split(plan.oldString).join(plan.newString));
  const note = plan.crlf ? " (matched with CRLF line endings, which were kept)" : "";
  return { content: `Edited ${input.file_path}: replaced ${plural(plan.count, "occurrence")}${note}.` };
}

/**
 * Counts non-overlapping exact matches. Read shows lines without their `\r`, so in a CRLF file a multi-line
 * old_string copied from Read has bare `\n`: when that finds nothing, retry with CRLF on both sides.
 * Replacement uses split/join, never String.replace, so `$&` and friends in new_string stay literal.
 */
function planEdit(text: string, oldString: string, newString: string) {
  const count = countOccurrences(text, oldString);
  if (count > 0 || !oldString.includes("\n") || oldString.includes("\r\n") || !text.includes("\r\n")) {
    return { count, oldString, newString, crlf: false };
  }
  const crlfOld = oldString.replace(/\n/g, "\r\n");
  return {
    count: countOccurrences(text, crlfOld),
    oldString: crlfOld,
    newString: newString.replace(/\r?\n/g, "\r\n"),
    crlf: true,
  };
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length))
    count++;
  return count;
}
