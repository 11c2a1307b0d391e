import { type Dirent, lstatSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, posix } from "node:path";
import {
  allowedRootsOf,
  checkWritePath,
  coveringRoot,
  resolvePhysical,
  type WriteScope,
} from "@agent-lattice/core/internal";
import { compileGlob, hasGlobSyntax } from "../glob.js";
import type { Arg } from "./args.js";
import type { CwdState, Finding, FoundTarget } from "./parse-writes.js";

/**
 * Turns the analyser's findings into decisions against the file system: each candidate path is resolved against
 * each possible working directory, globs are expanded as bash would expand them now, and every resulting path goes
 * through core's checkWritePath, like Write and Edit.
 *
 * A path known to be outside the roots is denied in every mode (an early, friendly denial). What cannot be pinned
 * down — opaque code, run-time targets, /dev and /proc paths, writes that may go through entries created earlier
 * in the same call — is "unresolvable": without the sandbox it is refused (fail closed); inside the sandbox the
 * read-only mounts decide, so it is let through.
 */

export interface BashDenial {
  requestedPath: string;
  resolvedPath: string | null;
  reason: string;
  /** True when the target (or the code) could not be determined: a rewrite, or the sandbox, is the way forward. */
  unresolvable: boolean;
}

/** Only /dev/null discards. /dev/stdout, /dev/stderr and /dev/fd/N re-open whatever the descriptor points to. */
export function isDiscardTarget(path: string): boolean {
  return path.startsWith("/") && posix.normalize(path) === "/dev/null";
}

/** Glob matches per target before the target counts as unknown. */
const MAX_GLOB_MATCHES = 10_000;
/** Entries of a copy destination inspected for symlinks leading out. */
const MAX_TREE_ENTRIES = 10_000;

export function checkFindings(
  findings: readonly Finding[],
  scope: WriteScope,
  sandboxed: boolean,
): BashDenial[] {
  const denials: BashDenial[] = [];
  const unresolvable = (requestedPath: string, reason: string) => {
    if (!sandboxed) denials.push({ requestedPath, resolvedPath: null, reason, unresolvable: true });
  };
  const allowedRoots = allowedRootsOf(scope);
  for (const finding of findings) {
    if (finding.type === "opaque") {
      unresolvable(finding.text, `the analyser does not model this: ${finding.reason}`);
      continue;
    }
    if (finding.type === "option-glob") {
      if (sandboxed) continue;
      const problem = optionGlobProblem(finding.arg, finding.cwd, finding.command, findings);
      if (problem !== undefined) unresolvable(finding.arg.text, problem);
      continue;
    }
    if (finding.type === "entries") {
      if (sandboxed || finding.tree === undefined) continue;
      const problem = treeProblem(finding.tree.arg, finding.tree.cwd, allowedRoots);
      if (problem !== undefined) unresolvable(finding.tree.arg.text, problem);
      continue;
    }
    const paths = targetPaths(finding.arg, finding.cwd, finding.why);
    if ("unknown" in paths) {
      unresolvable(finding.arg.text, paths.unknown);
      continue;
    }
    for (const path of paths.paths) {
      if (finding.kind === "content" && isDiscardTarget(path)) continue;
      if (/^\/(proc|dev)(\/|$)/.test(posix.normalize(path))) {
        unresolvable(
          finding.arg.text,
          `${path} is under /proc or /dev: besides /dev/null such paths re-open what a descriptor points to or ` +
            "show another process's view (write to stderr with >&2 instead of >/dev/stderr)",
        );
        continue;
      }
      const linkPaths = finding.symlink ? symlinkTargets(path, finding) : [path];
      if (typeof linkPaths === "string") {
        unresolvable(finding.arg.text, linkPaths);
        continue;
      }
      for (const linkPath of linkPaths) {
        const check = checkWritePath(linkPath, scope, { followFinalSymlink: finding.kind !== "remove" });
        if (!check.allowed) {
          const reason =
            finding.kind === "link"
              ? `${finding.why} ${check.resolvedPath ?? linkPath} is outside every writable root (a link there would let later writes escape)`
              : `${finding.why} ${check.reason}`;
          denials.push({
            requestedPath: finding.arg.text,
            resolvedPath: check.resolvedPath,
            reason,
            unresolvable: check.resolvedPath === null,
          });
        } else if (/^\/(proc|dev)(\/|$)/.test(check.resolvedPath)) {
          unresolvable(finding.arg.text, `${finding.arg.text} leads under /proc or /dev`);
        }
      }
    }
  }
  if (!sandboxed) denials.push(...laterWrites(findings));
  return denials;
}

/**
 * A write after a command that creates new directory entries (mv, cp -r) could go through an entry that did not
 * exist when the command was checked — a symlink moved or copied into place. Only writes strictly before such a
 * command, in sequential code, are decided now (and the command's own targets); the rest must run in a later call,
 * which sees the new entries.
 */
function laterWrites(findings: readonly Finding[]): BashDenial[] {
  const creators = findings.filter(finding => finding.type === "entries");
  const denials: BashDenial[] = [];
  for (const finding of findings) {
    if (finding.type !== "target") continue;
    const creator = creators.find(
      candidate =>
        candidate.command !== finding.command &&
        (candidate.concurrent || finding.concurrent || candidate.order < finding.order),
    );
    if (creator === undefined) continue;
    denials.push({
      requestedPath: finding.arg.text,
      resolvedPath: null,
      reason:
        `${creator.why}; ${finding.why} ${finding.arg.text} runs after it (or alongside it) in the same call and ` +
        "could go through an entry that does not exist yet. Run it in a separate Bash call",
      unresolvable: true,
    });
  }
  return denials;
}

/**
 * A glob handed to a command as an operand becomes an option if it matches a name starting with "-": refused when
 * such a name exists now, or when the same call writes one (it could exist by then).
 */
function optionGlobProblem(
  arg: Arg,
  cwd: CwdState,
  command: string,
  findings: readonly Finding[],
): string | undefined {
  const advice = `(write ./${arg.text} so no name can be taken as an option)`;
  const paths = targetPaths(arg, cwd, `${command} operand`);
  if ("unknown" in paths) return paths.unknown;
  const dashed = paths.paths.find(path => basename(path).startsWith("-"));
  if (dashed !== undefined)
    return `${command}: ${arg.text} matches ${dashed}, which ${command} would take as an option ${advice}`;
  const created = findings.find(
    finding =>
      finding.type === "target" &&
      finding.arg.evaluated.known &&
      finding.arg.evaluated.candidates.some(candidate => basename(candidate.value).startsWith("-")),
  );
  if (created !== undefined)
    return `${command}: ${arg.text} could match a file this command creates whose name starts with "-" ${advice}`;
  return undefined;
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
 * `ln -s TARGET LINK`: a relative TARGET is stored as is and resolved by the kernel against the link's directory,
 * physically. That directory is LINK itself when LINK is (or will be) a directory, else LINK's parent — which of
 * the two cannot be known before the command runs (`rmdir d && ln -s ../out d`, `ln -sfn`), so both are checked.
 * With -r, ln resolves TARGET against the working directory first (the path as given is what is linked).
 */
function symlinkTargets(target: string, finding: FoundTarget): string[] | string {
  const symlink = finding.symlink!;
  const original = finding.arg.evaluated.known ? finding.arg.evaluated.candidates[0]?.value : undefined;
  if (original === undefined) return `the ln -s target ${finding.arg.text} is only known at run time`;
  if (isAbsolute(original) || symlink.relative) return [target];
  const linkPaths = targetPaths(symlink.link, symlink.cwd, "ln link name");
  if ("unknown" in linkPaths) return linkPaths.unknown;
  const out: string[] = [];
  for (const linkPath of linkPaths.paths) {
    for (const dir of [linkPath, dirname(linkPath)]) {
      try {
        out.push(`${resolvePhysical(dir)}/${original}`);
      } catch (error) {
        return `the ln -s link ${symlink.link.text} cannot be resolved: ${(error as Error).message}`;
      }
    }
  }
  return out;
}

/**
 * cp -r writes into the existing tree of its destination and follows the symlinks it meets there for files
 * (`dest/f -> /elsewhere`): refused when that tree holds a symlink leading out of the writable roots.
 */
function treeProblem(arg: Arg, cwd: CwdState, allowedRoots: readonly string[]): string | undefined {
  const paths = targetPaths(arg, cwd, "copy destination");
  if ("unknown" in paths) return paths.unknown;
  let seen = 0;
  for (const start of paths.paths) {
    let root: string;
    try {
      root = resolvePhysical(start);
      if (!statSync(root).isDirectory()) continue;
    } catch {
      continue; // not there yet: nothing to follow
    }
    const queue = [root];
    while (queue.length > 0) {
      const dir = queue.shift()!;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > MAX_TREE_ENTRIES)
          return `the destination ${arg.text} holds more than ${MAX_TREE_ENTRIES} entries to inspect for symlinks`;
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) queue.push(path);
        else if (entry.isSymbolicLink()) {
          let resolved: string | undefined;
          try {
            resolved = resolvePhysical(path);
          } catch {
            resolved = undefined;
          }
          if (resolved === undefined || coveringRoot(resolved, allowedRoots) === undefined) {
            return `the copy destination holds ${path}, a symlink leading outside the writable roots, which the copy would write through`;
          }
        }
      }
    }
  }
  return undefined;
}

/**
 * Bash pathname expansion of a glob against the file system now, one path component at a time (so symlinked
 * directories are expanded as bash would and then resolved physically by the caller). A component that could
 * match "." or ".." (such as `.*` in older bash) includes them. Undefined when too many.
 */
export function expandGlob(pattern: string, base: string): string[] | undefined {
  const absolute = pattern.startsWith("/");
  const components = pattern.split("/").filter(part => part !== "");
  let current = [absolute ? "/" : base];
  for (const component of components) {
    const next: string[] = [];
    if (!hasGlobSyntax(component)) {
      const literal = component.replace(/\\(.)/g, "$1");
      for (const dir of current) next.push(join(dir, literal));
    } else {
      const matches = compileGlob(component, { dot: false, braces: false });
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
