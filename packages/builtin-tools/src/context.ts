import { mkdir } from "node:fs/promises";
import type { ToolHandlerExtra } from "@agent-lattice/core";
import type { WriteScope } from "./grants.js";
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
  /** Creates the working directory when it is a private workspace that does not exist yet. */
  ensureCwd(): Promise<void>;
}

export function createToolContext(input: {
  cwd: string;
  roots: readonly string[];
  bash: ResolvedBashOptions;
  createCwd: boolean;
  cwdLabel?: string;
}): ToolContext {
  let created: Promise<void> | undefined;
  return {
    cwd: input.cwd,
    cwdLabel: input.cwdLabel ?? input.cwd,
    roots: input.roots,
    bash: input.bash,
    ensureCwd() {
      if (!input.createCwd) return Promise.resolve();
      // Memoised: the workspace is made on the first tool call that needs it, once. A failure is retried.
      created ??= mkdir(input.cwd, { recursive: true, mode: 0o700 }).then(
        () => undefined,
        error => {
          created = undefined;
          throw error;
        },
      );
      return created;
    },
  };
}

/** The write scope of one tool call: the agent's roots plus this query's task-scoped grants. */
export function writeScope(context: ToolContext, extra: Pick<ToolHandlerExtra, "permissions">): WriteScope {
  return { roots: context.roots, grants: extra.permissions?.workspaceGrants, cwd: context.cwd };
}
