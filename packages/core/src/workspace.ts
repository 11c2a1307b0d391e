import type { ToolDefinition } from "./tool.js";

/**
 * The workspace port. `createAgent()` asks a WorkspaceProvider for each new session's private workspace:
 * the tools it contributes and the section it adds to the system prompt. Core ships no provider; the
 * `agent-lattice` umbrella installs the built-in file/shell tools as the default, so core never imports them.
 */
export interface WorkspaceProvider {
  createSession(input: { sessionId: string; agentName?: string }): WorkspaceSession;
}

export interface WorkspaceSession {
  tools: ToolDefinition[];
  /** Appended to the system prompt so the model knows where it may write. */
  systemPromptSection?: string;
  /**
   * Called once by Agent.close(): release what the session holds; delete a private workspace unless `keep`
   * (the host asked to keep it, or the session is named and may be resumed).
   */
  close?(options: { keep: boolean }): void | Promise<void>;
}

/**
 * A task-scoped grant to write under `root` (beyond the agent's own workspace roots). Access values are
 * operation categories, not tool names: "write" covers Write, Edit and obvious Bash writes.
 */
export interface WorkspaceGrant {
  root: string;
  access: Array<"write">;
  reason?: string;
}

/** What the host (or a delegating parent) allows this query beyond the agent's defaults. */
export interface QueryPermissions {
  workspaceGrants?: WorkspaceGrant[];
}
