import type { PendingApproval } from "./approvals.js";
import type {
  AssistantModelMessage,
  ModelMessage,
  PromptInput,
  TextBlock,
  ToolResultContent,
  UserContentBlock,
} from "./messages.js";
import type { OutputFormatParam, ReasoningEffort, StopReason, ThinkingParam } from "./model-client.js";
import type { ResolvedApproval, ResultSubtype } from "./sdk-messages.js";
import type { ToolKind } from "./tool.js";
import type { Usage } from "./usage.js";

/**
 * The trace model: one typed event per thing that happened in a run, precise enough that a hosted tracer
 * (LangSmith, Langfuse) maps it one to one — a run per query, an llm run per model turn (model_request →
 * assistant_message), a tool run per call (tool_use → tool_result, with the call's own start and end times), and
 * delegated runs nested by parent_run_id / parent_tool_use_id.
 */

/** Version of the event format written in every event's `v`. Files without `v` are version 0 (read by readContextTrace). */
export const TRACE_EVENT_VERSION = 1;

/** Fields every trace event carries. `seq` orders the events of one run (one query). */
export interface ContextTraceEnvelope {
  /** Event format version (TRACE_EVENT_VERSION). */
  v: number;
  /** The session of the agent that emitted it. */
  session_id: string;
  /** One id per query (per team invocation for team events). */
  run_id: string;
  seq: number;
  /** Who emitted it: the agent's name (or "agent"), or the team's name for team events. */
  source: string;
  /** ISO timestamp of the emission. */
  time: string;
  /** The run this run was started from (a delegating parent or a team), when there is one. */
  parent_run_id?: string;
  /** The parent's tool call that started this run, so concurrent children nest under the right call. */
  parent_tool_use_id?: string;
}

/** A serialisable summary of an error. */
export interface TraceErrorData {
  name: string;
  message: string;
  code?: string;
  /** HTTP status of a provider error. */
  status?: number;
}

export interface RunStartData {
  model: string;
  /** Names of the tools offered to the model. */
  tools: string[];
}

export interface UserMessageData {
  content: PromptInput | UserContentBlock[];
  /** "prompt": the query's prompt; "runtime": input a runtime admitted between turns (e.g. team handoff reports). */
  origin: "prompt" | "runtime";
}

/** A model request as sent (after onModelRequest). Its time is the llm run's start. */
export interface ModelRequestData {
  turn: number;
  model: string;
  max_tokens: number;
  system?: string | TextBlock[];
  /** Names of the tools offered. */
  tools: string[];
  messages: ModelMessage[];
  thinking?: ThinkingParam;
  reasoning_effort?: ReasoningEffort;
  output_format?: OutputFormatParam;
}

/** A model turn, assembled. Its time is the llm run's end; started_at is its model_request's time. */
export interface AssistantMessageData {
  turn: number;
  message: AssistantModelMessage;
  stop_reason: StopReason | null;
  usage: Usage;
  started_at: string;
  duration_ms: number;
}

/** A tool call the model asked for (emitted for every call of a batch before the batch runs). */
export interface ToolUseData {
  id: string;
  name: string;
  input: unknown;
  turn: number;
}

/** One call's result, emitted when that call ends (after onToolResult), with its own start and end times. */
export interface ToolResultData {
  tool_use_id: string;
  name: string;
  /** "tool", "agent_tool" (delegation), "submit_output", … */
  kind: ToolKind;
  content: ToolResultContent;
  is_error: boolean;
  turn: number;
  started_at: string;
  ended_at: string;
  duration_ms: number;
}

export interface CompactionData {
  trigger: "threshold" | "recovery";
  compacted_messages: number;
  usage: Usage;
  summary: string;
}

export interface ErrorEventData {
  error: TraceErrorData;
  /** true when the error propagates out of query() (a hook, store or tracer failure the host asked to see). */
  fatal?: boolean;
  /** What was happening: a model turn, compaction, … */
  during?: "model_request" | "compaction" | "tool_batch" | "prompt_caching" | (string & {});
  turn?: number;
  /** For a failed compaction: what triggered it. */
  trigger?: "threshold" | "recovery";
  /** The run went on (the provider refused cache_control; the request was resent without breakpoints). */
  recovered?: boolean;
  /** What happened, in words, for a recovered failure. */
  note?: string;
}

export interface ApprovalRequestedData {
  turn: number;
  approvals: PendingApproval[];
}

export interface ApprovalResolvedData {
  decisions: ResolvedApproval[];
}

export interface ResultData {
  subtype: ResultSubtype;
  is_error: boolean;
  result: string;
  structuredResult?: unknown;
  usage: Usage;
  stop_reason: StopReason | null;
  num_turns: number;
  duration_ms: number;
  /** Failed tool handlers by tool name, when any failed. */
  tool_errors?: Record<string, number>;
  error?: TraceErrorData;
  /** With subtype "awaiting_approval". */
  pendingApprovals?: PendingApproval[];
}

/**
 * Event type → payload. Packages that emit events of their own (the team runtime's team_message, team_agent, …)
 * add entries by declaration merging:
 *
 *     declare module "@agent-lattice/core" {
 *       interface ContextTraceEventDataMap { team_message: TeamMessageTraceData }
 *     }
 */
export interface ContextTraceEventDataMap {
  run_start: RunStartData;
  user_message: UserMessageData;
  model_request: ModelRequestData;
  assistant_message: AssistantMessageData;
  tool_use: ToolUseData;
  tool_result: ToolResultData;
  compaction: CompactionData;
  error: ErrorEventData;
  approval_requested: ApprovalRequestedData;
  approval_resolved: ApprovalResolvedData;
  result: ResultData;
}

export type ContextTraceEventType = keyof ContextTraceEventDataMap;

/** One trace event: the envelope plus a `type` and its typed `data`. Discriminated by `type`. */
export type ContextTraceEvent<T extends ContextTraceEventType = ContextTraceEventType> =
  T extends ContextTraceEventType
    ? ContextTraceEnvelope & { type: T; data: ContextTraceEventDataMap[T] }
    : never;
