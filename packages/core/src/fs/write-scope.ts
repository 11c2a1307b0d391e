import { isAbsolute } from "node:path";
import type { WorkspaceGrant } from "../workspace.js";
import { isWithin, PathResolutionError, resolvePhysical, resolvePhysicalEntry } from "./physical-path.js";

/**
 * The write-permission decision shared by Write, Edit, Bash, delegation and the team runtime: a path may be
 * written when its physical location is inside one of the workspace roots or inside a task-scoped grant with
 * access "write". Grants come only from the query (`extra.permissions.workspaceGrants`); a grant that is not
 * passed there, has no "write" access, or has a relative root does nothing.
 *
 * This is the early decision on a path. What makes it a boundary is safe-open.ts, which checks the file actually
 * opened against the same roots.
 */

export interface WriteScope {
  /** The agent's own writable roots (allowedDirectories, or its private workspace). */
  roots: readonly string[];
  /** Task-scoped grants from the query's permissions. Only `access` containing "write" counts. */
  grants?: readonly WorkspaceGrant[] | undefined;
  /** Base for a relative `path` (default process.cwd()). */
  cwd?: string;
}

export type DeniedWriteCheck = {
  allowed: false;
  code: "permission_denied";
  requestedPath: string;
  /** The physical path the write would touch; null when it could not be resolved. */
  resolvedPath: string | null;
  /** Physical roots then granted roots, in order, deduplicated. */
  allowedRoots: string[];
  reason: string;
};

export type WriteCheck =
  | { allowed: true; requestedPath: string; resolvedPath: string; coveredBy: string }
  | DeniedWriteCheck;

export interface WriteCheckOptions {
  /**
   * false when the operation acts on the directory entry itself (rm, unlink, mv's source): a symlink as the
   * last component is then not followed. Default true (writing through a symlink writes its target).
   */
  followFinalSymlink?: boolean;
}

/** Physical roots a scope allows, workspace roots first, then write grants (deduplicated, order kept). */
export function allowedRootsOf(scope: WriteScope): string[] {
  const out: string[] = [];
  const add = (root: string) => {
    try {
      const physical = resolvePhysical(root);
      if (!out.includes(physical)) out.push(physical);
    } catch {
      // A root that cannot be resolved to one place (a symlink loop, `..` after a missing part) covers nothing.
    }
  };
  for (const root of scope.roots) if (typeof root === "string" && isAbsolute(root)) add(root);
  for (const grant of scope.grants ?? []) {
    if (grant && typeof grant.root === "string" && isAbsolute(grant.root) && hasWriteAccess(grant)) {
      add(grant.root);
    }
  }
  return out;
}

export function hasWriteAccess(grant: WorkspaceGrant): boolean {
  return Array.isArray(grant.access) && grant.access.includes("write");
}

/** The allowed root covering a physical path, if any. */
export function coveringRoot(physicalPath: string, allowedRoots: readonly string[]): string | undefined {
  return allowedRoots.find(root => isWithin(physicalPath, root));
}

/** Decides whether `path` may be written. Never throws for a bad path; returns a denial instead. */
export function checkWritePath(path: string, scope: WriteScope, options: WriteCheckOptions = {}): WriteCheck {
  const allowedRoots = allowedRootsOf(scope);
  let resolvedPath: string;
  try {
    const resolver = options.followFinalSymlink === false ? resolvePhysicalEntry : resolvePhysical;
    resolvedPath = resolver(path, scope.cwd ?? process.cwd());
  } catch (error) {
    const reason =
      error instanceof PathResolutionError
        ? error.message
        : `the path could not be resolved (${error instanceof Error ? error.message : String(error)})`;
    return denied(path, null, allowedRoots, reason);
  }
  const coveredBy = coveringRoot(resolvedPath, allowedRoots);
  if (coveredBy !== undefined) return { allowed: true, requestedPath: path, resolvedPath, coveredBy };
  const reason =
    allowedRoots.length === 0
      ? "this agent has no writable roots and no write grant for this task"
      : `${resolvedPath} is outside every writable root`;
  return denied(path, resolvedPath, allowedRoots, reason);
}

export function denied(
  requestedPath: string,
  resolvedPath: string | null,
  allowedRoots: string[],
  reason: string,
): DeniedWriteCheck {
  return { allowed: false, code: "permission_denied", requestedPath, resolvedPath, allowedRoots, reason };
}
