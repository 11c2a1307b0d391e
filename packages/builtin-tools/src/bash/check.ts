import { lstatSync, readdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, posix, resolve } from "node:path";
import { picomatch } from "../glob-matcher.js";
import { checkWritePath, type WriteScope } from "../grants.js";
import type { Arg } from "./args.js";
import type { CwdState, Finding, FoundTarget } from "./parse-writes.js";

/**
 * Turns the writes found in a command into allow/deny against the file system: each candidate path is
 * resolved against each possible working directory, globs are expanded the way bash would expand them now,
 * and every resulting path goes through the same checkWritePath as Write and Edit. Anything that cannot be
 * pinned down is denied, unless the OS sandbox is on (then the sandbox is what enforces it).
 */

export interface BashDenial {
  requestedPath: string;
  resolvedPath: string | null;
  reason: string;
  unresolvable: boolean;
}

/** Paths that discard or pass through output; writing to them writes no file. */
export function isDiscardTarget(path: string): boolean {
  if (!path.startsWith("/")) return false;
  const normal = posix.normalize(path);
  return (
    normal === "/dev/null" ||
    normal === "/dev/stdout" ||
    normal === "/dev/stderr" ||
    /^\/dev\/fd\/\d+$/.test(normal)
  );
}

/** Glob matches per target before the target counts as unknown. */
const MAX_GLOB_MATCHES = 10_000;

export function checkFindings(
  findings: readonly Finding[],
  scope: WriteScope,
  sandboxed: boolean,
): BashDenial[] {
  const denials: BashDenial[] = [];
  const unresolvable = (requestedPath: string, reason: string) => {
    if (!sandboxed) denials.push({ requestedPath, resolvedPath: null, reason, unresolvable: true });
  };
  for (const finding of findings) {
    if (finding.type === "opaque") {
      unresolvable(finding.text, `write detection cannot analyse this: ${finding.reason}`);
      continue;
    }
    const paths = targetPaths(finding.arg, finding.cwd, finding.why);
    if ("unknown" in paths) {
      unresolvable(finding.arg.text, paths.unknown);
      continue;
    }
    for (const path of paths.paths) {
      if (finding.kind === "content" && isDiscardTarget(path)) continue;
      const linkPaths = finding.linkDirOf ? symlinkTargets(path, finding) : [path];
      if (typeof linkPaths === "string") {
        unresolvable(finding.arg.text, linkPaths);
        continue;
      }
      for (const linkPath of linkPaths) {
        const check = checkWritePath(linkPath, scope, { followFinalSymlink: finding.kind !== "remove" });
        if (!check.allowed) {
          const reason =
            finding.kind === "link"
              ? `${finding.why} ${check.resolvedPath} is outside every writable root (a link there would let later writes escape)`
              : `${finding.why} ${check.reason}`;
          denials.push({
            requestedPath: finding.arg.text,
            resolvedPath: check.resolvedPath,
            reason,
            unresolvable: false,
          });
        }
      }
    }
  }
  return denials;
}

/** Absolute paths a target may name, or why they cannot be known. */
function targetPaths(arg: Arg, cwd: CwdState, why: string): { paths: string[] } | { unknown: string } {
  if (!arg.evaluated.known)
    return {
      unknown: `the ${why} target ${arg.text} cannot be determined before running: ${arg.evaluated.reason}`,
    };
  const paths: string[] = [];
  for (const candidate of arg.evaluated.candidates) {
    const relative = !isAbsolute(candidate.value);
    if (relative && "unknown" in cwd) {
      return {
        unknown: `the ${why} target ${arg.text} is relative and the working directory is unknown ${cwd.unknown}`,
      };
    }
    const bases = relative && "dirs" in cwd ? cwd.dirs : ["/"];
    for (const base of bases) {
      if (candidate.glob === undefined) {
        paths.push(relative ? `${base}/${candidate.value}` : candidate.value);
        continue;
      }
      const matches = expandGlob(candidate.glob, base);
      if (matches === undefined)
        return { unknown: `the ${why} target ${arg.text} matches more than ${MAX_GLOB_MATCHES} paths` };
      // No match: bash passes the word on literally.
      if (matches.length === 0) paths.push(relative ? `${base}/${candidate.value}` : candidate.value);
      else paths.push(...matches);
    }
  }
  return { paths };
}

/**
 * `ln -s TARGET LINK`: a relative TARGET is stored as is and resolved against the link's directory (LINK
 * itself when it is an existing directory, else its parent).
 */
function symlinkTargets(target: string, finding: FoundTarget): string[] | string {
  const link = finding.linkDirOf!;
  const original = finding.arg.evaluated.known ? finding.arg.evaluated.candidates[0]?.value : undefined;
  if (original !== undefined && isAbsolute(original)) return [target];
  const linkPaths = targetPaths(link.arg, link.cwd, "ln link name");
  if ("unknown" in linkPaths) return linkPaths.unknown;
  return linkPaths.paths.map(linkPath => {
    const dir = isDirectory(linkPath) ? linkPath : dirname(linkPath);
    return resolve(dir, original ?? target);
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Bash pathname expansion of a picomatch pattern against the file system now, one path component at a time
 * (so symlinked directories are expanded as bash would and then resolved physically by the caller). A
 * component that could match "." or ".." (such as `.*` in older bash) includes them. Undefined when too many.
 */
export function expandGlob(pattern: string, base: string): string[] | undefined {
  const absolute = pattern.startsWith("/");
  const components = pattern.split("/").filter(part => part !== "");
  let current = [absolute ? "/" : base];
  for (const component of components) {
    const next: string[] = [];
    if (!picomatch().scan(component).isGlob) {
      const literal = component.replace(/\\(.)/g, "$1");
      for (const dir of current) next.push(join(dir, literal));
    } else {
      const matches = picomatch()(component, { dot: false, nobrace: true, posix: true });
      for (const dir of current) {
        let names: string[];
        try {
          names = readdirSync(dir);
        } catch {
          continue;
        }
        for (const name of [".", "..", ...names]) {
          if (matches(name)) next.push(join(dir, name));
          if (next.length > MAX_GLOB_MATCHES) return undefined;
        }
      }
    }
    current = next;
  }
  return current.filter(path => exists(path));
}

function join(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

/** lstat, not stat: bash's globbing lists a dangling symlink too, and a write through it creates its target. */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
