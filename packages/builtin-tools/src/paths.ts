import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

/**
 * Physical path resolution: what the kernel would open, not what the string looks like.
 *
 * Write gating must decide on the real target. A lexical `path.resolve()` is wrong for `root/link/../x`
 * (the kernel follows `link` first, then `..`), for a dangling symlink (the write creates the link's
 * target), and for a parent that does not exist yet under a symlinked directory. So we walk the path one
 * component at a time from `/`: existing components are lstat'ed and symlinks are followed (relative link
 * targets resolve against the link's directory); at the first component that does not exist, the rest is
 * appended lexically to the nearest existing, real ancestor (a write would create real directories there).
 * The existing prefix is finally passed through realpath.native, so a case-insensitive or
 * normalisation-insensitive file system (macOS) reports the on-disk spelling. Strings are then compared
 * exactly, segment by segment: on Linux `café` (NFC) and `café` (NFD) are two different directories.
 */

/** Symlink hops before we give up, like the kernel's ELOOP (40 on Linux). */
const MAX_SYMLINK_HOPS = 40;

export class SymlinkLoopError extends Error {
  constructor(path: string) {
    super(`too many levels of symbolic links while resolving ${path}`);
    this.name = "SymlinkLoopError";
  }
}

/** Absolute form of `path` against `cwd`, without touching `..` or symlinks (no normalisation). */
export function absoluteFrom(cwd: string, path: string): string {
  return isAbsolute(path) ? path : `${cwd}/${path}`;
}

/**
 * The path a read-only tool opens: normalised (`./`, `//`, trailing `/` removed) for display, except when it
 * has a `..` segment — then it is passed to the kernel as written, because `link/../x` means the parent of
 * the link's target, not `x` next to the link.
 */
export function readPath(cwd: string, path: string): string {
  return path.split("/").includes("..") ? absoluteFrom(cwd, path) : resolve(cwd, path);
}

/**
 * The real path a write to `path` would touch. Throws SymlinkLoopError on a symlink cycle.
 * `path` may be relative (to `cwd`), contain `..`, `//`, `/./`, trailing slashes, or not exist yet.
 */
export function resolvePhysical(path: string, cwd: string = process.cwd()): string {
  return walk(absoluteFrom(cwd, path), 0);
}

/**
 * Like resolvePhysical, but the last component is not followed when it is a symlink: what `rm`, `unlink` and
 * `mv` act on is the directory entry itself. A trailing `/`, `.` or `..` makes the last component a directory
 * to traverse, so those are resolved fully.
 */
export function resolvePhysicalEntry(path: string, cwd: string = process.cwd()): string {
  const absolute = absoluteFrom(cwd, path);
  const cut = absolute.lastIndexOf("/");
  const last = absolute.slice(cut + 1);
  if (last === "" || last === "." || last === "..") return walk(absolute, 0);
  const parent = walk(absolute.slice(0, cut) || "/", 0);
  return parent === "/" ? `/${last}` : `${parent}/${last}`;
}

function walk(absolute: string, hops: number): string {
  const components = absolute.split("/").filter(part => part !== "" && part !== ".");
  let current = "/";
  for (let index = 0; index < components.length; index++) {
    const component = components[index]!;
    if (component === "..") {
      // `current` is already physical, so its parent is the real parent.
      current = parentOf(current);
      continue;
    }
    const next = current === "/" ? `/${component}` : `${current}/${component}`;
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // ENOENT, ENOTDIR, EACCES: nothing more to follow; the rest would be created (or fail) under `current`.
      return resolve(canonical(current), ...components.slice(index));
    }
    if (isLink) {
      if (hops >= MAX_SYMLINK_HOPS) throw new SymlinkLoopError(absolute);
      const target = readlinkSync(next);
      const base = isAbsolute(target) ? target : `${current}/${target}`;
      const rest = components.slice(index + 1).join("/");
      return walk(rest === "" ? base : `${base}/${rest}`, hops + 1);
    }
    current = next;
  }
  return canonical(current);
}

function parentOf(path: string): string {
  if (path === "/") return "/";
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/** On-disk spelling of an existing, symlink-free path (identity on Linux; fixes case on macOS). */
function canonical(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/**
 * True when `path` is `root` or inside it. Segment aware: `/work/a` covers `/work/a/x`, never `/work/ab`.
 * Both must already be physical (see resolvePhysical).
 */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix);
}
