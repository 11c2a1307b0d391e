import { type Dirent, readdirSync, statSync } from "node:fs";

/**
 * The directory walker behind Glob and Grep: breadth-first, in slices (see yieldToEventLoop), no symlinked
 * directories followed (no cycles, no escaping the searched tree), symlinked files included.
 */

/** Directory names not descended into unless the search starts inside them (version control, dependencies). */
export const DEFAULT_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
]);

/** Files visited per call before the walk stops with a note (keeps a call bounded on `/`). */
export const WALK_MAX_FILES = 200_000;

/** Milliseconds of synchronous work (listing, matching) between two yields to the event loop. */
export const SLICE_MS = 15;

/**
 * Synchronous file-system calls in short slices are several times faster than promise-based ones for many
 * small directories and files (no thread-pool round trip per call); yielding between slices keeps the
 * event loop (other tools, the model stream, abort) responsive.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise(resolve => setImmediate(resolve));
}

export interface WalkOptions {
  /** Deepest directory level to list below the base (1 = the base's own entries). Default unlimited. */
  maxDepth?: number;
  /** Called with the path relative to the base ("a/b.ts"); returning false skips the file. */
  accept?: (relativePath: string) => boolean;
  signal?: AbortSignal;
}

export interface WalkResult {
  /** Relative paths ("/"-separated) of the accepted files. */
  files: string[];
  /** True when WALK_MAX_FILES was reached. */
  truncated: boolean;
  /** Directories that could not be listed (permission denied and the like). */
  unreadable: number;
}

export async function walkFiles(base: string, options: WalkOptions = {}): Promise<WalkResult> {
  const files: string[] = [];
  let visited = 0;
  let unreadable = 0;
  const queue: Array<{ relative: string; depth: number }> = [{ relative: "", depth: 1 }];
  const slice = new TimeSlice(options.signal);
  for (let head = 0; head < queue.length; head++) {
    await slice.maybeYield();
    const dir = queue[head]!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir.relative === "" ? base : `${base}/${dir.relative}`, { withFileTypes: true });
    } catch {
      unreadable++;
      continue;
    }
    for (const [index, entry] of entries.entries()) {
      if (index % 256 === 255) await slice.maybeYield();
      const relative = dir.relative === "" ? entry.name : `${dir.relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (DEFAULT_SKIPPED_DIRECTORIES.has(entry.name)) continue;
        if (options.maxDepth === undefined || dir.depth < options.maxDepth)
          queue.push({ relative, depth: dir.depth + 1 });
        continue;
      }
      if (entry.isSymbolicLink() && !isFile(`${base}/${relative}`)) continue;
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (++visited > WALK_MAX_FILES) return { files, truncated: true, unreadable };
      if (options.accept === undefined || options.accept(relative)) files.push(relative);
    }
  }
  return { files, truncated: false, unreadable };
}

/** Yields to the event loop once SLICE_MS of synchronous work has passed, and honours an abort there. */
export class TimeSlice {
  private started = Date.now();
  constructor(private readonly signal?: AbortSignal) {}

  async maybeYield(): Promise<void> {
    if (Date.now() - this.started < SLICE_MS) return;
    await yieldToEventLoop();
    this.signal?.throwIfAborted();
    this.started = Date.now();
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
