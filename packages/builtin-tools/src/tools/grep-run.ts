import { stat } from "node:fs/promises";
import type { ToolHandlerExtra, ToolResult } from "@agent-lattice/core";
import { readPath } from "@agent-lattice/core/internal";
import type { ToolContext } from "../context.js";
import { compileGlob, GlobPatternError } from "../glob.js";
import { type GrepFileMatch, type GrepOutcome, RegexBudgetError, searchInWorker } from "../grep-worker.js";
import { fsErrorMessage, plural, SNIFF_BYTES, truncateLine } from "../text.js";
import { walkFiles } from "../walk.js";
import type { GrepInput } from "./grep.js";
import { GREP_MAX_FILE_BYTES, GREP_MAX_LINE_CHARS, GREP_MAX_OUTPUT_CHARS } from "./limits.js";

type FileMatch = GrepFileMatch;
type SearchResult = GrepOutcome;

/** The Grep tool's handler: loaded on the tool's first call, not when the tools are created. */
export async function runGrep(
  context: ToolContext,
  input: GrepInput,
  extra: ToolHandlerExtra,
): Promise<ToolResult> {
  await context.ensureCwd();
  const flags = input["-i"] ? "iu" : "u";
  try {
    // Compiled here only to report a syntax error; the matching runs in the worker, under a deadline.
    new RegExp(input.pattern, flags);
  } catch (error) {
    return {
      content: `Invalid regular expression ${JSON.stringify(input.pattern)}: ${(error as Error).message}. Grep uses JavaScript RegExp syntax; escape literal characters such as ( [ . * + ? with a backslash.`,
      isError: true,
    };
  }
  const root = readPath(context.cwd, input.path ?? ".");
  try {
    const info = await stat(root);
    if (!info.isDirectory() && !info.isFile()) {
      return {
        content: `${root} is not a regular file or directory (a FIFO, socket or device); Grep reads regular files only.`,
        isError: true,
      };
    }
    const mode = input.output_mode ?? "files_with_matches";
    const listing = info.isDirectory()
      ? await listFiles(root, input.glob, extra.signal)
      : { files: [root], truncated: false };
    const search =
      listing.files.length === 0
        ? { matches: [], binarySkipped: 0, largeSkipped: 0, specialSkipped: 0 }
        : await searchInWorker(
            {
              files: listing.files,
              pattern: input.pattern,
              flags,
              keepLines: mode === "content",
              maxFileBytes: GREP_MAX_FILE_BYTES,
              sniffBytes: SNIFF_BYTES,
            },
            extra.signal,
          );
    return { content: render(input, mode, search, listing.truncated, root) };
  } catch (error) {
    if ((error as Error).name === "AbortError") return { content: "Grep was aborted.", isError: true };
    if (error instanceof RegexBudgetError)
      return { content: `Grep stopped: ${error.message}.`, isError: true };
    if (error instanceof GlobPatternError)
      return { content: `Invalid glob: ${error.message}.`, isError: true };
    return { content: `Cannot search ${root}: ${fsErrorMessage(error)}.`, isError: true };
  }
}

async function listFiles(root: string, glob: string | undefined, signal: AbortSignal) {
  // A glob without "/" matches the file name at any depth (like ripgrep's --glob).
  const matches = glob === undefined ? undefined : compileGlob(glob, { dot: true, basename: true });
  const walk = await walkFiles(root, { signal, ...(matches ? { accept: matches } : {}) });
  const prefix = root === "/" ? "" : root;
  return { files: walk.files.sort().map(file => `${prefix}/${file}`), truncated: walk.truncated };
}

function render(
  input: GrepInput,
  mode: "content" | "files_with_matches" | "count",
  search: SearchResult,
  walkTruncated: boolean,
  root: string,
): string {
  if (search.matches.length === 0) {
    return `No matches for ${JSON.stringify(input.pattern)} in ${root}${input.glob ? ` (files matching ${input.glob})` : ""}.${skippedNote(search)}`;
  }
  let entries: string[];
  if (mode === "files_with_matches") entries = search.matches.map(match => match.path);
  else if (mode === "count") entries = search.matches.map(match => `${match.path}:${match.hits.length}`);
  else entries = contentLines(input, search.matches);
  const notes: string[] = [];
  let shown = entries;
  if (input.head_limit !== undefined && entries.length > input.head_limit) {
    shown = entries.slice(0, input.head_limit);
    notes.push(
      `[Showing the first ${input.head_limit} of ${entries.length} ${mode === "content" ? "lines" : "entries"} (head_limit).]`,
    );
  }
  const capped: string[] = [];
  let size = 0;
  for (const entry of shown) {
    if (size + entry.length + 1 > GREP_MAX_OUTPUT_CHARS && capped.length > 0) {
      notes.push(
        `[Output cut at ${GREP_MAX_OUTPUT_CHARS} characters: ${shown.length - capped.length} more ${mode === "content" ? "lines" : "entries"} not shown. Narrow path or glob, or use head_limit.]`,
      );
      break;
    }
    capped.push(entry);
    size += entry.length + 1;
  }
  if (mode === "count") {
    const total = search.matches.reduce((sum, match) => sum + match.hits.length, 0);
    notes.push(`[${plural(total, "matching line")} in ${plural(search.matches.length, "file")}.]`);
  } else if (mode === "files_with_matches") {
    notes.push(`[${plural(search.matches.length, "file")} matched.]`);
  }
  if (walkTruncated) notes.push("[The search stopped after 200000 files; narrow path to search the rest.]");
  const skipped = skippedNote(search).trim();
  if (skipped) notes.push(skipped);
  return [...capped, ...notes].join("\n");
}

function skippedNote(search: SearchResult): string {
  const parts: string[] = [];
  if (search.binarySkipped > 0) parts.push(`${plural(search.binarySkipped, "binary file")}`);
  if (search.largeSkipped > 0) parts.push(`${plural(search.largeSkipped, "file")} over 20 MB`);
  if (search.specialSkipped > 0)
    parts.push(`${plural(search.specialSkipped, "file")} that turned out not to be regular (FIFO, device)`);
  return parts.length > 0 ? ` [Skipped ${parts.join(" and ")}.]` : "";
}

function contentLines(input: GrepInput, matches: FileMatch[]): string[] {
  const before = input["-B"] ?? input["-C"] ?? 0;
  const after = input["-A"] ?? input["-C"] ?? 0;
  const numbers = input["-n"] ?? true;
  const out: string[] = [];
  const withContext = before > 0 || after > 0;
  for (const match of matches) {
    const hitSet = new Set(match.hits);
    let lastPrinted = -1;
    for (const hit of match.hits) {
      const from = Math.max(0, hit - before, lastPrinted + 1);
      const to = Math.min(lastLine(match.lines), hit + after);
      if (withContext && out.length > 0 && from > lastPrinted + 1) out.push("--");
      for (let index = from; index <= to; index++) {
        const separator = hitSet.has(index) ? ":" : "-";
        const text = truncateLine((match.lines[index] ?? "").replace(/\r$/, ""), GREP_MAX_LINE_CHARS);
        out.push(
          numbers
            ? `${match.path}${separator}${index + 1}${separator}${text}`
            : `${match.path}${separator}${text}`,
        );
      }
      lastPrinted = Math.max(lastPrinted, to);
    }
  }
  return out;
}

/** Index of the last real line (a trailing newline leaves an empty element that is not a line). */
function lastLine(lines: string[]): number {
  return lines.length > 1 && lines.at(-1) === "" ? lines.length - 2 : lines.length - 1;
}
