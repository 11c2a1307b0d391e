import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

/**
 * Physical path resolution: the place the kernel would reach, not what the string looks like.
 *
 * A write must be decided on its real target. A lexical `path.resolve()` is wrong for `root/link/../x` (the kernel
 * follows `link` first, then `..`), for a dangling symlink (the write creates the link's target) and for a parent
 * that does not exist yet under a symlinked directory. So the path is walked one component at a time from `/`:
 * existing components are lstat'ed and symlinks followed (relative targets against the link's directory). At the
 * first component that does not exist, the rest is appended to the nearest existing real ancestor (a write would
 * create real directories there) — and from then on nothing may be interpreted: a `..` after a missing component
 * is refused, because no kernel resolves it and whatever gets created there first decides where it leads
 * (`nope/../link-out/x`). Every other surprise is refused too, never guessed: a symlink cycle, a component that is
 * an existing non-directory (ENOTDIR), one the process may not look at (EACCES), a name too long, a NUL byte.
 *
 * The existing prefix finally goes through realpath.native, so a case- or normalisation-insensitive file system
 * (macOS) reports the on-disk spelling; callers then compare strings exactly, segment by segment (isWithin).
 */

/** Symlink hops before giving up, like the kernel's ELOOP (40 on Linux). */
const MAX_SYMLINK_HOPS = 40;
/** NAME_MAX on Linux and macOS: a longer component can never be created. */
const MAX_COMPONENT_BYTES = 255;

/** The path cannot be resolved to one physical place; `message` says why in words a model can act on. */
export class PathResolutionError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(reason);
    this.name = "PathResolutionError";
    this.path = path;
  }
}

/** Absolute form of `path` against `cwd`, without touching `..` or symlinks (no normalisation). */
export function absoluteFrom(cwd: string, path: string): string {
  return isAbsolute(path) ? path : `${cwd}/${path}`;
}

/**
 * The path a read-only tool opens: normalised (`./`, `//`, trailing `/` removed) for display, except when it has
 * a `..` segment — then it is passed to the kernel as written, because `link/../x` means the parent of the
 * link's target, not `x` next to the link.
 */
export function readPath(cwd: string, path: string): string {
  return path.split("/").includes("..") ? absoluteFrom(cwd, path) : resolve(cwd, path);
}

/**
 * The real path a write to `path` would touch. Throws PathResolutionError when there is no single answer (see the
 * module comment). `path` may be relative (to `cwd`), contain `..`, `//`, `/./`, trailing slashes, or not exist yet.
 */
export function resolvePhysical(path: string, cwd: string = process.cwd()): string {
  return walk(path, absoluteFrom(cwd, assertUsable(path)), 0);
}

/**
 * Like resolvePhysical, but the last component is not followed when it is a symlink: what `rm`, `unlink` and
 * `mv` act on is the directory entry itself. A trailing `/`, `.` or `..` makes the last component a directory to
 * traverse, so those are resolved fully.
 */
export function resolvePhysicalEntry(path: string, cwd: string = process.cwd()): string {
  const absolute = absoluteFrom(cwd, assertUsable(path));
  const cut = absolute.lastIndexOf("/");
  const last = absolute.slice(cut + 1);
  if (last === "" || last === "." || last === "..") return walk(path, absolute, 0);
  const parent = walk(path, absolute.slice(0, cut) || "/", 0);
  return parent === "/" ? `/${last}` : `${parent}/${last}`;
}

/**
 * True when `path` is `root` or inside it. Segment aware: `/work/a` covers `/work/a/x`, never `/work/ab`. Both
 * must already be physical (see resolvePhysical).
 */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix);
}

function assertUsable(path: string): string {
  if (typeof path !== "string" || path === "")
    throw new PathResolutionError(String(path), "the path is empty");
  if (path.includes("\0")) throw new PathResolutionError(path, "the path contains a NUL byte");
  return path;
}

function walk(original: string, absolute: string, hops: number): string {
  const components = absolute.split("/").filter(part => part !== "" && part !== ".");
  // A trailing "/" or "/." asks for a directory: an existing non-directory there is ENOTDIR to the kernel.
  const wantsDirectory = /\/\.?$/.test(absolute);
  let current = "/";
  for (let index = 0; index < components.length; index++) {
    const component = components[index]!;
    if (component === "..") {
      // `current` is physical and exists, so its parent is the real parent.
      current = parentOf(current);
      continue;
    }
    if (Buffer.byteLength(component) > MAX_COMPONENT_BYTES) {
      throw new PathResolutionError(
        original,
        `the path component "${component.slice(0, 40)}…" is longer than ${MAX_COMPONENT_BYTES} bytes`,
      );
    }
    const next = current === "/" ? `/${component}` : `${current}/${component}`;
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") throw new PathResolutionError(original, `${next} cannot be examined (${code})`);
      return missingFrom(original, current, components.slice(index));
    }
    if (info.isSymbolicLink()) {
      if (hops >= MAX_SYMLINK_HOPS)
        throw new PathResolutionError(
          original,
          `too many levels of symbolic links while resolving ${original}`,
        );
      const target = readlinkSync(next);
      const base = isAbsolute(target) ? target : `${current}/${target}`;
      const rest = components.slice(index + 1).join("/");
      const suffix = wantsDirectory ? "/" : "";
      return walk(original, `${rest === "" ? base : `${base}/${rest}`}${suffix}`, hops + 1);
    }
    const isLast = index === components.length - 1;
    if (!info.isDirectory() && (!isLast || wantsDirectory)) {
      throw new PathResolutionError(original, `${next} is not a directory, so nothing can be below it`);
    }
    current = next;
  }
  return canonical(current);
}

/** `existing` exists; `rest` (starting with a missing component) would be created below it. */
function missingFrom(original: string, existing: string, rest: readonly string[]): string {
  const dotdot = rest.indexOf("..");
  if (dotdot !== -1) {
    throw new PathResolutionError(
      original,
      `".." follows ${rest.slice(0, dotdot).join("/")}, which does not exist yet; where it leads would depend on ` +
        'what gets created first. Write the path without ".."',
    );
  }
  for (const component of rest) {
    if (Buffer.byteLength(component) > MAX_COMPONENT_BYTES) {
      throw new PathResolutionError(
        original,
        `the path component "${component.slice(0, 40)}…" is longer than ${MAX_COMPONENT_BYTES} bytes`,
      );
    }
  }
  const base = canonical(existing);
  return base === "/" ? `/${rest.join("/")}` : `${base}/${rest.join("/")}`;
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
