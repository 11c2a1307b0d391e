import type { DelegationTarget } from "./agent-spec.js";
import type { DelegationMode } from "./agent-tool-input.js";
import type { PromptInput, UserContentBlock } from "./messages.js";
import type { SDKMessage } from "./sdk-messages.js";
import type { OutputSchema } from "./structured-output.js";
import type { ToolHandlerExtra, ToolResult } from "./tool.js";
import type { WorkspaceGrant } from "./workspace.js";

/**
 * A runtime that hosts a query — the team runtime is the one the SDK ships. It fills `QueryOptions.runtime`, and
 * the loop calls it at two named points, so a runtime changes what delegation means and when the next model
 * request may go out without a copy of the loop:
 *
 * - `delegate` — a delegation tool (agentTool()/delegateTool()) is about to run; the runtime may answer the call
 *   itself (queue a handoff and return its receipt, route an ask through a mailbox) or leave it to core.
 * - `pendingInput` — between turns, after a tool batch's results are recorded and before the next model request;
 *   the runtime may hold the request until input it expects has arrived (the reports of handed-off work) and
 *   return that input, which enters the history as one user message.
 *
 * Both are optional. The runtime reaches tool handlers as `extra.run.runtime`. Delegated children do not inherit
 * it: a runtime belongs to the query that was given it.
 */
export interface QueryRuntime {
  delegate?(
    request: DelegationRequest,
    extra: ToolHandlerExtra,
  ): ToolResult | undefined | Promise<ToolResult | undefined>;
  pendingInput?(
    boundary: TurnBoundary,
  ): UserContentBlock[] | undefined | Promise<UserContentBlock[] | undefined>;
}

/** A delegation call, validated (input parsed, workspace grants accepted) and ready to run. */
export interface DelegationRequest {
  /** The delegation tool's name (the child as the caller sees it). */
  tool: string;
  factory: "agentTool" | "delegateTool";
  /**
   * agentTool()'s `mode` ("ask" when the model omitted it, and always "ask" for typed delegation); undefined for
   * delegateTool(), whose mode the runtime picks.
   */
  mode: DelegationMode | undefined;
  /** A spec (a fresh session per call) or a live session / AgentLike. */
  target: DelegationTarget<any>;
  /** The child's prompt, rendered from the task (or mapInput's projection). */
  prompt: PromptInput;
  /** The model's validated tool input. */
  input: unknown;
  /** Write grants the caller passed on, accepted (covered by its own) and resolved to physical roots. */
  grants: WorkspaceGrant[];
  /** The output contract the child is held to (explicit or inherited), if any. */
  outputSchema: OutputSchema | undefined;
}

/** The point between two model turns of a query, as a runtime sees it. */
export interface TurnBoundary {
  /** The turn whose tool batch just finished. */
  turn: number;
  sessionId: string;
  runId: string;
  /** Aborted when the query is aborted or interrupted: stop waiting (and cancel queued work, if that is the rule). */
  signal: AbortSignal;
  /** Streams a message to the query's consumer while the runtime works (back-pressure: resolves once taken). */
  emit(message: SDKMessage): Promise<void>;
}
