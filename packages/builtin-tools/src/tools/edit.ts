import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type ToolDefinition, tool } from "@agent-lattice/core";
import { type ToolContext, writeScope } from "../context.js";
import { permissionDenied } from "../denial.js";
import { checkWritePath } from "../grants.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { fsErrorMessage, looksBinary, plural } from "../text.js";

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

export function createEditTool(context: ToolContext): ToolDefinition<InferInput<typeof schema>> {
  return tool(
    "Edit",
    "Replaces exact text in a file. old_string must occur exactly once unless replace_all is true; include " +
      "enough surrounding lines to make it unique. An empty old_string creates a file that does not exist yet. " +
      "Allowed only inside your workspace roots and task-scoped write grants.",
    schema,
    async (input, extra) => {
      await context.ensureCwd();
      if (input.old_string === input.new_string) {
        return {
          content:
            "old_string and new_string are identical, so there is nothing to change. Pass the new text in new_string.",
          isError: true,
        };
      }
      const check = checkWritePath(input.file_path, writeScope(context, extra));
      if (!check.allowed) return permissionDenied({ tool: "Edit", ...check });
      const target = check.resolvedPath;
      try {
        const current = await readExisting(target);
        if (current === undefined) {
          if (input.old_string !== "") {
            return {
              content: `${input.file_path} does not exist. Use Write to create it (or Edit with an empty old_string).`,
              isError: true,
            };
          }
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, input.new_string, "utf8");
          return {
            content: `Created ${input.file_path} with ${plural(Buffer.byteLength(input.new_string), "byte")}.`,
          };
        }
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
          await writeFile(target, input.new_string, "utf8");
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
        await writeFile(target, text.split(plan.oldString).join(plan.newString), "utf8");
        const note = plan.crlf ? " (matched with CRLF line endings, which were kept)" : "";
        return { content: `Edited ${input.file_path}: replaced ${plural(plan.count, "occurrence")}${note}.` };
      } catch (error) {
        return { content: `Cannot edit ${input.file_path}: ${fsErrorMessage(error)}.`, isError: true };
      }
    },
  );
}

async function readExisting(path: string): Promise<Buffer | undefined> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
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
