import type { ToolHandlerExtra } from "@agent-lattice/core";
import type { WriteScope } from "@agent-lattice/core/internal";
import type { ResolvedBashOptions } from "./options.js";

/** What every built-in tool needs: where it runs, where it may write, and how Bash is configured. */
export interface ToolContext {
  /** Absolute; base of relative paths and the Bash working directory. */
  readonly cwd: string;
  /**
   * How tool descriptions name the working directory: its path, or (for a session's private workspace, whose path
   * the system prompt states) a phrase that is the same for every session, so tool definitions stay identical
   * across sessions and their prompt-cache entry is shared.
   */
  readonly cwdLabel: string;
  /** The agent's own writable roots (absolute). */
  readonly roots: readonly string[];
  readonly bash: ResolvedBashOptions;
  /** Creates (and checks) the working directory when it is a private workspace. Rejects with a WorkspaceError. */
  ensureCwd(): Promise<void>;
}

export function createToolContext(input: {
  cwd: string;
  roots: readonly string[];
  bash: ResolvedBashOptions;
  cwdLabel?: string;
  /** Makes and verifies the private workspace directory; omitted for a host directory. */
  prepare?: () => void;
}): ToolContext {
  return {
    cwd: input.cwd,
    cwdLabel: input.cwdLabel ?? input.cwd,
    roots: input.roots,
    bash: input.bash,
    ensureCwd() {
      // Checked on every call (a few lstat calls): a private workspace that was deleted, re-owned or replaced by a
      // symlink since the last call must stop the tools, not be followed.
      if (!input.prepare) return Promise.resolve();
      try {
        input.prepare();
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

/** The write scope of one tool call: the agent's roots plus this query's task-scoped grants. */
export function writeScope(context: ToolContext, extra: Pick<ToolHandlerExtra, "permissions">): WriteScope {
  return { roots: context.roots, grants: extra.permissions?.workspaceGrants, cwd: context.cwd };
}
