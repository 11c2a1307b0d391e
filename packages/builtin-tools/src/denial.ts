import { basename, dirname } from "node:path";
import type { ToolResult } from "@agent-lattice/core";

/**
 * The structured `permission_denied` tool result (B3). Its content is JSON so a model (or a manager agent
 * reading a member's transcript) can act on it: what was asked, where it really points, what is allowed,
 * and one deterministic next step — the same inputs always give the same text.
 */
export interface PermissionDeniedDetails {
  code: "permission_denied";
  tool: string;
  requestedPath: string;
  resolvedPath: string | null;
  allowedRoots: string[];
  message: string;
  suggestedNextStep: string;
  /** Bash only: the command that was not run. */
  command?: string;
  /** Bash only: whether commands run in the OS sandbox (false: the analyser alone decides, failing closed). */
  sandboxed?: boolean;
  /** Bash only, without the sandbox: why there is none. */
  mode?: string;
  /** Bash only: every denied write when there was more than one. */
  deniedWrites?: Array<{ requestedPath: string; resolvedPath: string | null; reason: string }>;
}

export interface DenialInput {
  tool: string;
  requestedPath: string;
  resolvedPath: string | null;
  allowedRoots: string[];
  reason: string;
  /** True when the target could not be determined statically (Bash): the next step is a rewrite. */
  unresolvable?: boolean;
  command?: string;
  sandboxed?: boolean;
  mode?: string;
  deniedWrites?: PermissionDeniedDetails["deniedWrites"];
}

export function suggestedNextStep(input: DenialInput): string {
  if (input.unresolvable) {
    const rewrite =
      "Rewrite the command so every write target is a literal path (no variables other than $HOME and $PWD, no " +
      "command substitution) using only commands the analyser models, or use the Write/Edit tools; write inside " +
      `${input.allowedRoots[0] ?? "a granted root"}.`;
    if (input.sandboxed === false) {
      return (
        `${rewrite} Bash runs without an OS sandbox here (${input.mode ?? "none is available"}), so it refuses ` +
        "what it cannot check beforehand; if you need this command as it is, tell the user that the host can " +
        "enable the bubblewrap sandbox or approve such commands (bash.approveUnmodeled)."
      );
    }
    return rewrite;
  }
  const resolved = input.resolvedPath ?? input.requestedPath;
  const grantDir = dirname(resolved);
  const ask = `ask the delegating manager for a workspaceGrants entry { root: ${JSON.stringify(grantDir)}, access: ["write"] } covering ${grantDir}`;
  const firstRoot = input.allowedRoots[0];
  if (firstRoot === undefined) return `This agent has no writable root: ${ask}.`;
  const inside = `${firstRoot.endsWith("/") ? firstRoot : `${firstRoot}/`}${basename(resolved) || "output"}`;
  return `Write inside ${firstRoot} instead (for example ${inside}) and report that path, or ${ask}.`;
}

export function permissionDenied(input: DenialInput): ToolResult {
  const details: PermissionDeniedDetails = {
    code: "permission_denied",
    tool: input.tool,
    requestedPath: input.requestedPath,
    resolvedPath: input.resolvedPath,
    allowedRoots: input.allowedRoots,
    message: `${input.tool} may not write ${input.requestedPath}: ${input.reason}. Writes are allowed only inside the workspace roots and task-scoped write grants.`,
    suggestedNextStep: suggestedNextStep(input),
  };
  if (input.command !== undefined) details.command = input.command;
  if (input.sandboxed !== undefined) details.sandboxed = input.sandboxed;
  if (input.mode !== undefined) details.mode = input.mode;
  if (input.deniedWrites !== undefined && input.deniedWrites.length > 1)
    details.deniedWrites = input.deniedWrites;
  return { content: JSON.stringify(details, null, 2), isError: true };
}
