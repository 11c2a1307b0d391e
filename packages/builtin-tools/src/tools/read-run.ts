import { constants } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import type { ToolHandlerExtra, ToolResult } from "@agent-lattice/core";
import { readPath } from "@agent-lattice/core/internal";
import type { ToolContext } from "../context.js";
import { fsErrorMessage, looksBinary, plural, SNIFF_BYTES, truncateLine } from "../text.js";
import {
  READ_DEFAULT_LIMIT,
  READ_MAX_LINE_CHARS,
  READ_MAX_OUTPUT_CHARS,
  READ_MAX_SCAN_BYTES,
} from "./limits.js";
import type { ReadInput } from "./read.js";

const READ_CHUNK_BYTES = 256 * 1024;
/** An unfinished line longer than this is cut while streaming, so one giant line cannot exhaust memory. */
const PENDING_CAP = 1024 * 1024;

/** The Read tool's handler: loaded on the tool's first call, not when the tools are created. */
export async function runRead(
  context: ToolContext,
  input: ReadInput,
  extra: ToolHandlerExtra,
): Promise<ToolResult> {
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
    // Never open a FIFO, socket or device: the open or the first read could wait forever, or have effects.
    if (!info.isFile()) return notRegular(path);
    const handle = await openForReading(path);
    try {
      if (!(await handle.stat()).isFile()) return notRegular(path);
      const sniff = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(sniff, 0, SNIFF_BYTES, 0);
      if (bytesRead === 0) return { content: `${path} is empty (0 bytes).` };
      if (looksBinary(sniff.subarray(0, bytesRead))) {
        return {
          content:
            `${path} looks like a binary file (${plural(info.size, "byte")}); Read returns text only. ` +
            "Inspect it with Bash instead, e.g. `file <path>` or `xxd <path> | head`.",
          isError: true,
        };
      }
      return {
        content: await readPage(
          handle,
          path,
          input.offset ?? 1,
          input.limit ?? READ_DEFAULT_LIMIT,
          extra.signal,
        ),
      };
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as Error).name === "AbortError") return { content: "Read was aborted.", isError: true };
    return { content: `Cannot read ${path}: ${fsErrorMessage(error)}.`, isError: true };
  }
}

function notRegular(path: string): ToolResult {
  return {
    content: `${path} is not a regular file (a FIFO, socket or device); Read reads regular files only.`,
    isError: true,
  };
}

/** Opens for reading without blocking on a FIFO and without becoming a controlling terminal. */
export function openForReading(path: string): Promise<FileHandle> {
  return open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
}

/**
 * Reads the file in chunks so a page deep inside a huge file costs no more memory than the page itself. The work
 * is bounded by the bytes actually read: at most READ_MAX_SCAN_BYTES per call, and the scan stops at the first
 * NUL byte (binary data, or a sparse file's hole — whose apparent size is not its cost).
 */
async function readPage(
  handle: FileHandle,
  path: string,
  offset: number,
  limit: number,
  signal: AbortSignal,
): Promise<string> {
  const out: string[] = [];
  let outChars = 0;
  let lineNumber = 0; // lines completed so far
  let lastShown = offset - 1;
  let stoppedForSize = false;
  let pending = "";
  let scanned = 0;
  let stop: string | undefined; // why the scan ended before the end of the file
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
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  for (;;) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK_BYTES, scanned);
    if (bytesRead === 0) break;
    let bytes = buffer.subarray(0, bytesRead);
    const nul = bytes.indexOf(0);
    if (nul !== -1) {
      bytes = bytes.subarray(0, nul);
      stop = `NUL bytes begin at byte ${scanned + nul} (binary data or a sparse region)`;
    }
    scanned += bytes.length;
    const chunk = decoder.write(bytes);
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
    if (stop !== undefined) break;
    if (scanned >= READ_MAX_SCAN_BYTES) {
      stop = `Read stops after ${READ_MAX_SCAN_BYTES / (1024 * 1024)} MiB per call`;
      break;
    }
  }
  pending += decoder.end();
  if (pending !== "" && stop === undefined) take(pending);
  const countComplete = stop === undefined;
  const total = lineNumber;
  if (out.length === 0) {
    if (!countComplete)
      return `${path}: no line ${offset} within the part that was read (${stop}). Use Bash (e.g. sed -n or tail) for the rest.`;
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
  if (stop !== undefined) notes.push(`[The scan stopped early: ${stop}.]`);
  return [...out, ...notes].join("\n");
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++;
  return count;
}
