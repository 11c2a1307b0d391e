import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { isWithin } from "./physical-path.js";
import {
  allowedRootsOf,
  checkWritePath,
  coveringRoot,
  type DeniedWriteCheck,
  denied,
  type WriteScope,
} from "./write-scope.js";

/**
 * The write boundary itself: a file is written only through a descriptor whose real location was checked.
 *
 * checkWritePath decides on a path; between that decision and the write, a symlink can appear, a directory can be
 * swapped, a FIFO can wait. So the write goes: physical resolution (no `..` after a missing part) → missing
 * directories created one at a time, each re-checked to be a real directory at its expected physical place →
 * the target opened with O_NOFOLLOW (the last component cannot be a symlink), O_NONBLOCK (a FIFO or device cannot
 * block the open) and without O_TRUNC (nothing changes before the check) → fstat: a regular file with one link
 * (a hard link would carry the write to its other names) → the descriptor's real path (/proc/self/fd/N on Linux)
 * inside an allowed root → only then truncate and write. A file this call created and then found outside is
 * removed again, so a lost race leaves nothing behind.
 */

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOCTTY = constants.O_NOCTTY ?? 0;

export type UnsafeFileCode = "not_regular_file" | "is_directory" | "hard_linked" | "too_large" | "not_found";

/** The target exists but must not be written (or read for an edit) this way; the message says what to do. */
export class UnsafeFileError extends Error {
  readonly code: UnsafeFileCode;
  constructor(code: UnsafeFileCode, message: string) {
    super(message);
    this.name = "UnsafeFileError";
    this.code = code;
  }
}

export interface OpenedForWrite {
  fd: number;
  /** The real path of the opened file (checked inside an allowed root). */
  path: string;
  /** False when this call created the file. */
  existed: boolean;
  /** Size when opened. */
  size: number;
}

export type SafeOpenResult = { ok: true; file: OpenedForWrite } | { ok: false; denial: DeniedWriteCheck };

export interface SafeOpenOptions {
  /** Create the file (and missing parent directories inside the root) when it does not exist. Default true. */
  create?: boolean;
  /** Open for reading too (an edit reads the current content through the same descriptor). */
  read?: boolean;
}

/** Raised inside this module when the place actually reached is not the place that was checked. */
class ChangedPathError extends Error {
  constructor(
    readonly actualPath: string | null,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * Opens `path` for writing inside `scope`, or returns the denial. Throws UnsafeFileError for a target that is no
 * regular file (or hard-linked), and ordinary fs errors (EACCES, ENOSPC…). Close the descriptor with closeOpened.
 */
export function openForWrite(path: string, scope: WriteScope, options: SafeOpenOptions = {}): SafeOpenResult {
  const check = checkWritePath(path, scope);
  if (!check.allowed) return { ok: false, denial: check };
  const roots = allowedRootsOf(scope);
  try {
    return { ok: true, file: openChecked(check.resolvedPath, check.coveredBy, roots, options) };
  } catch (error) {
    if (!(error instanceof ChangedPathError)) throw error;
    return { ok: false, denial: denied(path, error.actualPath, roots, error.message) };
  }
}

function openChecked(
  target: string,
  root: string,
  roots: readonly string[],
  options: SafeOpenOptions,
): OpenedForWrite {
  const before = lstatOrUndefined(target);
  if (before) refuseUnsafeKind(target, before);
  else if (options.create === false) throw new UnsafeFileError("not_found", `${target} does not exist`);
  else ensureDirectories(dirname(target), root);

  const flags = (options.read ? constants.O_RDWR : constants.O_WRONLY) | NOFOLLOW | NONBLOCK | NOCTTY;
  let fd: number | undefined;
  let created = false;
  try {
    if (!before) {
      try {
        fd = openSync(target, flags | constants.O_CREAT | constants.O_EXCL, 0o666);
        created = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    fd ??= openSync(target, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK")
      throw new ChangedPathError(null, `${target} became a symbolic link after it was checked`);
    if (code === "ENXIO" || code === "EOPNOTSUPP")
      throw new UnsafeFileError(
        "not_regular_file",
        `${target} is not a regular file (a FIFO, socket or device)`,
      );
    if (code === "EISDIR") throw new UnsafeFileError("is_directory", `${target} is a directory`);
    throw error;
  }
  try {
    const info = fstatSync(fd);
    refuseUnsafeKind(target, info);
    const real = openedPath(fd, target, info);
    if (coveringRoot(real, roots) === undefined) {
      if (created) removeQuietly(real);
      throw new ChangedPathError(
        real,
        `the file actually opened is ${real}, outside every writable root (the path changed after it was checked)`,
      );
    }
    return { fd, path: real, existed: !created, size: info.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function refuseUnsafeKind(path: string, info: Stats): void {
  if (info.isDirectory()) throw new UnsafeFileError("is_directory", `${path} is a directory`);
  if (info.isSymbolicLink())
    throw new ChangedPathError(null, `${path} became a symbolic link after it was checked`);
  if (!info.isFile()) {
    throw new UnsafeFileError(
      "not_regular_file",
      `${path} is not a regular file (it is a ${kindOf(info)}); only regular files are written`,
    );
  }
  if (info.nlink > 1) {
    throw new UnsafeFileError(
      "hard_linked",
      `${path} has ${info.nlink} hard links; writing it would also change the other names, which may lie outside ` +
        "the writable roots. Copy it to a new file and replace the original with the copy first",
    );
  }
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return "FIFO";
  if (info.isSocket()) return "socket";
  if (info.isCharacterDevice()) return "character device";
  if (info.isBlockDevice()) return "block device";
  return "special file";
}

/**
 * Creates the missing directories above a target one at a time, only inside the covering root (the root itself
 * included), and checks each one is a real directory at its expected physical place right after creating it.
 */
function ensureDirectories(dir: string, root: string): void {
  const missing: string[] = [];
  let cursor = dir;
  while (lstatOrUndefined(cursor) === undefined) {
    missing.unshift(cursor);
    const parent = dirname(cursor);
    if (parent === cursor) break;
    cursor = parent;
  }
  const anchor = lstatOrUndefined(cursor);
  if (anchor && (anchor.isSymbolicLink() || !anchor.isDirectory()))
    throw new ChangedPathError(null, `${cursor} is no longer a directory (it changed after it was checked)`);
  for (const next of missing) {
    if (!isWithin(next, root)) {
      throw new UnsafeFileError(
        "not_found",
        `${next} does not exist and lies above the writable root ${root}; only directories inside the root are created`,
      );
    }
    let made = true;
    try {
      mkdirSync(next, 0o777);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      made = false;
    }
    const info = lstatSync(next);
    const real = realpathSync.native(next);
    if (real !== next || info.isSymbolicLink() || !info.isDirectory()) {
      if (made && real !== next) removeDirQuietly(real);
      throw new ChangedPathError(
        real,
        `${next} resolves to ${real} (the path changed while it was being created)`,
      );
    }
  }
}

/** The real path of an open descriptor: /proc/self/fd on Linux, else a dev/inode comparison with the checked path. */
function openedPath(fd: number, expected: string, info: Stats): string {
  let real: string | undefined;
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    real = undefined;
  }
  if (real !== undefined) {
    if (!real.startsWith("/") || real.endsWith(" (deleted)"))
      throw new ChangedPathError(null, `${expected} was removed or replaced while it was being opened`);
    return real;
  }
  const now = lstatOrUndefined(expected);
  const parent = dirname(expected);
  if (now && now.ino === info.ino && now.dev === info.dev && realpathSync.native(parent) === parent)
    return expected;
  throw new ChangedPathError(null, `${expected} changed while it was being opened`);
}

/** Reads the whole opened file (for an edit), refusing more than `maxBytes`. Bounded by the bytes actually read. */
export function readOpened(file: OpenedForWrite, maxBytes: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const count = readSync(file.fd, chunk, 0, chunk.length, total);
    if (count === 0) break;
    total += count;
    if (total > maxBytes) {
      throw new UnsafeFileError("too_large", `${file.path} is larger than ${maxBytes} bytes`);
    }
    chunks.push(Buffer.from(chunk.subarray(0, count)));
  }
  return Buffer.concat(chunks, total);
}

/** Replaces the opened file's content (truncate, then write from offset 0). */
export function replaceOpened(file: OpenedForWrite, content: string | Uint8Array): number {
  const data = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  ftruncateSync(file.fd, 0);
  let written = 0;
  while (written < data.length) written += writeSync(file.fd, data, written, data.length - written, written);
  return written;
}

export function closeOpened(file: OpenedForWrite): void {
  closeSync(file.fd);
}

/**
 * Writes `content` to `path` inside `scope` through a checked descriptor: the one-call form for tools and for
 * hosts' own write tools. Returns the denial instead of writing when the file is (or turns out to be) outside.
 */
export function writeFileWithinScope(
  path: string,
  content: string | Uint8Array,
  scope: WriteScope,
): { ok: true; path: string; existed: boolean; bytes: number } | { ok: false; denial: DeniedWriteCheck } {
  const opened = openForWrite(path, scope, { create: true });
  if (!opened.ok) return opened;
  try {
    const bytes = replaceOpened(opened.file, content);
    return { ok: true, path: opened.file.path, existed: opened.file.existed, bytes };
  } finally {
    closeOpened(opened.file);
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // It was ours and empty; if it is already gone there is nothing to undo.
  }
}

function removeDirQuietly(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // Not empty or gone: nothing of ours to undo.
  }
}
