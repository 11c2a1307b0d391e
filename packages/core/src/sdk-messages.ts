import type { PendingApproval } from "./approvals.js";
import type { AgentLatticeError } from "./errors.js";
import type { AssistantModelMessage, ToolResultBlock } from "./messages.js";
import type { RawStreamEvent, StopReason } from "./model-client.js";
import type { ToolFailureReason } from "./tool-execution.js";
import type { Usage } from "./usage.js";

/** First message of every query: what the session runs with. */
export type SDKSystemInitMessage = {
  type: "system";
  subtype: "init";
  session_id: string;
  model: string;
  /** Names of the tools the model can call in this query. */
  tools: string[];
};

/** Compaction replaced older history with a summary (between turns, or to recover from a too-long prompt). */
export type SDKCompactionMessage = {
  type: "system";
  subtype: "compaction";
  session_id: string;
  trigger: "threshold" | "recovery";
  /** How many messages the summary replaced. */
  compacted_messages: number;
  /** Tokens the summarizing request used (also folded into the result's usage). */
  usage: Usage;
};

/**
 * A tool call's handler failed: it threw, ran past its timeoutMs, was abandoned after being told to stop, or
 * returned something that is not a tool result. Yielded as the call ends, before the batch's `user` message (whose
 * tool_result for this call tells the model the same, as an error result). The model usually recovers, so the run
 * may still end `success`; the result's `tool_errors` counts these per tool. Not yielded for error results a tool
 * returns itself (`isError: true`), nor for calls refused before running (bad input, permission, policy).
 */
export type SDKToolErrorMessage = {
  type: "system";
  subtype: "tool_error";
  session_id: string;
  /** The turn whose batch made the call. */
  turn: number;
  tool_name: string;
  tool_use_id: string;
  reason: ToolFailureReason;
  /** What the model was told (the error tool_result's text, after onToolResult hooks). */
  message: string;
  /** What the handler threw, when it threw. */
  error?: unknown;
};

/**
 * The history store's copy had damage that loading skipped: a line of a JSONL history that is not a message
 * (a torn last write after a crash, or a line edited or corrupted in the middle). The rest of the history was
 * loaded; the skipped message is not in it. Yielded after `init` by the first query after the load.
 */
export type SDKHistoryWarningMessage = {
  type: "system";
  subtype: "history_warning";
  session_id: string;
  warning: HistoryLoadWarning;
};

/** One problem a history store met while loading (see HistoryStoreMethods.load). */
export interface HistoryLoadWarning {
  /**
   * "damaged_line": a line in the middle that is not a JSON message. "torn_last_line": the last line, cut off
   * (typically a write the process did not finish before it died).
   */
  code: "damaged_line" | "torn_last_line" | (string & {});
  /** Readable: what was skipped, where, and what to do. */
  message: string;
  /** 1-based line number in the store's file, when the store has lines. */
  line?: number;
  /** The start of the skipped text (at most 200 characters), to find or restore it. */
  preview?: string;
}

/** A raw provider stream event, yielded while the model is still responding (streaming queries only). */
export type SDKStreamEventMessage = {
  type: "stream_event";
  event: RawStreamEvent;
  session_id: string;
  /** 1-based model turn within the query. */
  turn: number;
};

/** One assembled model turn (text / thinking / tool_use blocks and provider metadata). */
export type SDKAssistantMessage = {
  type: "assistant";
  message: AssistantModelMessage;
  session_id: string;
  turn: number;
};

/** The results of one whole tool batch, in tool_use order. The prompt itself is never echoed. */
export type SDKUserMessage = {
  type: "user";
  message: { role: "user"; content: ToolResultBlock[] };
  session_id: string;
  turn: number;
};

export type ResultSubtype =
  | "success"
  | "interrupted"
  /** Not an error: calls wait for a person's decision; `pendingApprovals` lists them, agent.resume() continues. */
  | "awaiting_approval"
  | "error_max_turns"
  | "error_during_execution"
  | "error_abort"
  | "error_timeout"
  | "error_missing_output"
  /** outputSchema: maxOutputAttempts submit_output calls were rejected (InvalidOutputError). */
  | "error_invalid_output";

/** The last message of every query. `TOutput` is the type of the agent's outputSchema, when it has one. */
export type SDKResultMessage<TOutput = unknown> = {
  type: "result";
  subtype: ResultSubtype;
  /** True for the error_* subtypes; "interrupted" is normal control flow. */
  is_error: boolean;
  /**
   * Final text of the run. A failed run without text of its own carries its error's message here, so printing
   * `result` says why it failed.
   */
  result: string;
  /** Typed payload of a structured run (endTurn + structuredResult, or outputSchema). */
  structuredResult?: TOutput;
  /** Summed over every model request of this query. */
  usage: Usage;
  /** stop_reason of the last model response; null when no response arrived. */
  stop_reason: StopReason | null;
  /** Model requests made by this query. */
  num_turns: number;
  duration_ms: number;
  session_id: string;
  /**
   * Tool calls whose handler failed in this query (threw, timed out, abandoned, invalid result), by tool name;
   * absent when none did. Each was also announced by a `system` `tool_error` message.
   */
  tool_errors?: Record<string, number>;
  /** The typed error behind an error_* subtype. */
  error?: AgentLatticeError;
  /** With subtype "awaiting_approval": the calls waiting for a person's decision. */
  pendingApprovals?: PendingApproval[];
};

/** Calls of a batch wait for a person's decision; the query ends "awaiting_approval" right after this. */
export type SDKApprovalRequestedMessage = {
  type: "approval_requested";
  approvals: PendingApproval[];
  session_id: string;
  /** The turn whose batch paused. */
  turn: number;
};

/** A person's decisions were applied (at the start of a resumed query). */
export type SDKApprovalResolvedMessage = {
  type: "approval_resolved";
  decisions: ResolvedApproval[];
  session_id: string;
};

/** One applied decision, as events and traces report it. */
export interface ResolvedApproval {
  toolUseId: string;
  toolName: string;
  agentPath: string[];
  behavior: "approve" | "reject";
  /** The person (or system) that decided, when the host said. */
  decidedBy?: string;
  /** The rejection's message. */
  message?: string;
  /** The approval came with an edited input. */
  edited: boolean;
}

/**
 * A delegated agent's message, surfaced in the parent's stream while the delegating tool runs, so a host can
 * render sub-agent progress. Nested delegation nests these.
 */
export type SDKAgentMessage = {
  type: "agent_message";
  /** The delegation tool's name (the child as the parent sees it). */
  agent: string;
  /** The parent's tool_use that started the child run. */
  tool_use_id: string;
  /** The child's own SDK message (its session_id is the child's). */
  message: SDKMessage;
  /** The parent's session. */
  session_id: string;
};

/**
 * Message type → message. The union is open: a package that streams messages of its own through an agent's query
 * (the team runtime's team_message and team_agent events) adds them by declaration merging, and they are then
 * part of SDKMessage everywhere — ToolHandlerExtra.emit, the event channel, AgentLike.query() — without casts:
 *
 *     declare module "@agent-lattice/core" {
 *       interface SDKMessageMap { team_message: TeamMessageEvent }
 *     }
 */
export interface SDKMessageMap {
  agent_message: SDKAgentMessage;
  approval_requested: SDKApprovalRequestedMessage;
  approval_resolved: SDKApprovalResolvedMessage;
  system: SDKSystemInitMessage | SDKCompactionMessage | SDKToolErrorMessage | SDKHistoryWarningMessage;
  stream_event: SDKStreamEventMessage;
  assistant: SDKAssistantMessage;
  user: SDKUserMessage;
  result: SDKResultMessage;
}

/** Every message query() yields, discriminated by `type` (and `subtype` for system messages). */
export type SDKMessage = SDKMessageMap[keyof SDKMessageMap];
