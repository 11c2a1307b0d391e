import { readFile } from "node:fs/promises";
import { type ContextTraceEvent, InvalidOptionError, readContextTrace } from "@agent-lattice/core";
import { TraceFileError } from "./errors.js";

/** A reason a person can act on, from a file system error. */
export function describeFileError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EISDIR":
      return "it is a directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

export function assertPaths(paths: unknown, label: string): asserts paths is string[] {
  if (
    !Array.isArray(paths) ||
    paths.length === 0 ||
    !paths.every(path => typeof path === "string" && path !== "")
  )
    throw new InvalidOptionError(`${label}: expected one or more trace file paths (non-empty strings).`);
}

/**
 * Reads JSONL trace files into events with readContextTrace (torn or malformed lines skipped, version-0 files
 * upgraded), in the order given. Every file is read before any is returned: one unreadable file is a
 * TraceFileError naming it.
 */
export async function readTraceFiles(paths: readonly string[]): Promise<ContextTraceEvent[]> {
  assertPaths(paths, "readTraceFiles");
  const texts = await Promise.all(
    paths.map(async path => {
      try {
        return await readFile(path, "utf8");
      } catch (error) {
        throw new TraceFileError(path, describeFileError(error), { cause: error });
      }
    }),
  );
  return texts.flatMap(text => readContextTrace(text));
}
