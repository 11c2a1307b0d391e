import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { type ToolDefinition, tool } from "@agent-lattice/core";
import type { ToolContext } from "../context.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { readPath } from "../paths.js";
import { fileLooksBinary, fsErrorMessage, plural, truncateLine } from "../text.js";

/** Lines returned when the model gives no limit (as Claude Code's Read). */
export const READ_DEFAULT_LIMIT = 2000;
/** Characters kept of one line. */
export const READ_MAX_LINE_CHARS = 2000;
/** Characters of numbered output per call; past this the call stops early and says how to page on. */
export const READ_MAX_OUTPUT_CHARS = 100_000;
/** Bytes scanned to count the file's lines after the requested page (a note says when we stopped). */
const COUNT_SCAN_LIMIT = 256 * 1024 * 1024;
/** An unfinished line longer than this is cut while streaming, so one giant line cannot exhaust memory. */
const PENDING_CAP = 1024 * 1024;

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

export function createReadTool(context: ToolContext): ToolDefinition<InferInput<typeof schema>> {
  return tool(
    "Read",
    "Reads a text file and returns its lines numbered like `cat -n` (line number, tab, text). Reads any path the " +
      `process can read. Returns up to ${READ_DEFAULT_LIMIT} lines from \`offset\` (1-based); page through large files ` +
      `with offset/limit. Lines longer than ${READ_MAX_LINE_CHARS} characters are cut. Binary files are refused. ` +
      "Use LS for directories.",
    schema,
    async (input, extra) => {
      await context.ensureCwd();
      const path = readPath(context.cwd, input.file_path);
      try {
        const info = await stat(path);
        if (info.isDirectory()) {
          return {
            content: `${path} is a directory, not a file. Use LS to list it or Glob to find files in it.`,
            isError: true,
          };
        }
        if (info.size > 0 && (await fileLooksBinary(path))) {
          return {
            content:
              `${path} looks like a binary file (${plural(info.size, "byte")}); Read returns text only. ` +
              "Inspect it with Bash instead, e.g. `file <path>` or `xxd <path> | head`.",
            isError: true,
          };
        }
        if (info.size === 0) return { content: `${path} is empty (0 bytes).` };
        return {
          content: await readPage(path, input.offset ?? 1, input.limit ?? READ_DEFAULT_LIMIT, extra.signal),
        };
      } catch (error) {
        return { content: `Cannot read ${path}: ${fsErrorMessage(error)}.`, isError: true };
      }
    },
    { isConcurrencySafe: () => true },
  );
}

/** Streams the file so a page deep inside a huge file costs no more memory than the page itself. */
async function readPage(path: string, offset: number, limit: number, signal: AbortSignal): Promise<string> {
  const out: string[] = [];
  let outChars = 0;
  let lineNumber = 0; // lines completed so far
  let lastShown = offset - 1;
  let stoppedForSize = false;
  let pending = "";
  let scanned = 0;
  let countComplete = true;
  const stream = createReadStream(path, { encoding: "utf8", signal });
  let pendingDropped = 0; // characters of an enormous unfinished line that were not kept
  const take = (line: string) => {
    lineNumber++;
    const dropped = pendingDropped;
    pendingDropped = 0;
    if (lineNumber < offset || lineNumber >= offset + limit || stoppedForSize) return;
    const shown = truncateLine(line.replace(/\r$/, ""), READ_MAX_LINE_CHARS, dropped);
    const text = `${String(lineNumber).padStart(6)}\t${shown}`;
    if (outChars + text.length + 1 > READ_MAX_OUTPUT_CHARS && out.length > 0) {
      stoppedForSize = true;
      return;
    }
    out.push(text);
    outChars += text.length + 1;
    lastShown = lineNumber;
  };
  for await (const chunk of stream as AsyncIterable<string>) {
    scanned += Buffer.byteLength(chunk);
    const pageDone = stoppedForSize || lineNumber >= offset + limit - 1;
    if (pageDone) {
      // Only counting now: no splitting, no strings kept.
      lineNumber += countNewlines(chunk);
      // Only whether a last, unterminated line exists matters now.
      if (chunk.length > 0) pending = chunk.endsWith("\n") ? "" : "…";
    } else {
      const parts = (pending + chunk).split("\n");
      pending = parts.pop() ?? "";
      for (const part of parts) take(part);
      if (pending.length > PENDING_CAP) {
        // A line with no end in sight: keep what can be shown, count the rest.
        pendingDropped += pending.length - (READ_MAX_LINE_CHARS + 1);
        pending = pending.slice(0, READ_MAX_LINE_CHARS + 1);
      }
    }
    if (scanned > COUNT_SCAN_LIMIT && lineNumber >= offset + limit - 1) {
      countComplete = false;
      stream.destroy();
      break;
    }
  }
  if (pending !== "" && countComplete) take(pending);
  const total = lineNumber;
  if (out.length === 0) {
    return `${path} has ${plural(total, "line")}; offset ${offset} is past the end. Use an offset between 1 and ${total}.`;
  }
  const totalText = countComplete ? String(total) : `more than ${total}`;
  const notes: string[] = [];
  if (lastShown < total || !countComplete) {
    notes.push(
      `[Showing lines ${offset}-${lastShown} of ${totalText}${stoppedForSize ? " (output size limit reached)" : ""}. ` +
        `Read again with offset: ${lastShown + 1} to continue, or a smaller limit.]`,
    );
  } else if (offset > 1) {
    notes.push(`[Showing lines ${offset}-${lastShown} of ${totalText}.]`);
  }
  return [...out, ...notes].join("\n");
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++;
  return count;
}
