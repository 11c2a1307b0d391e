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

/** Directories listed between two yields to the event loop. */
const DIRS_PER_SLICE = 64;

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
  for (let head = 0; head < queue.length; head++) {
    if (head % DIRS_PER_SLICE === DIRS_PER_SLICE - 1) {
      await yieldToEventLoop();
      options.signal?.throwIfAborted();
    }
    const dir = queue[head]!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir.relative === "" ? base : `${base}/${dir.relative}`, { withFileTypes: true });
    } catch {
      unreadable++;
      continue;
    }
    for (const entry of entries) {
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

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
