import type {
  AssistantContentBlock,
  AssistantModelMessage,
  CacheControl,
  ModelMessage,
  TextBlock,
} from "./messages.js";
import type { ReportedUsage } from "./usage.js";

/**
 * The ModelClient port: how the agent loop talks to a model. The built-in implementation is
 * `createAnthropicModelClient()` (real HTTP/SSE through @anthropic-ai/sdk); a host can supply any object
 * of this shape — a gateway, a cache, a recorded transcript, `createScriptedModelClient()` in tests.
 */
export interface ModelClient {
  /** One complete, non-streamed model response. */
  create(request: ModelRequest): Promise<ModelResponse>;
  /**
   * One streamed model response as raw Anthropic Messages stream events (message_start … message_stop).
   * Optional: without it the loop calls `create()` even for streaming queries and yields no stream_event.
   */
  stream?(request: ModelRequest): AsyncIterable<RawStreamEvent>;
}

export type StopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded"
  | (string & {});

/** A tool as the model sees it. `cache_control` on a tool marks a prompt-cache breakpoint after it. */
export type ModelToolSpec = {
  name: string;
  description: string;
  input_schema: JsonSchemaObject;
  cache_control?: CacheControl;
};

export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

/** Wire form of the `thinking` request parameter. */
export type ThinkingParam =
  | { type: "adaptive" }
  | { type: "enabled"; budget_tokens: number }
  | { type: "disabled" };

export type ReasoningEffort = "low" | "high" | "max";

/** Wire form of the structured-output format (`output_config.format` in the Anthropic API). */
export type OutputFormatParam = { type: "json_schema"; schema: Record<string, unknown> };

/**
 * One model request. With prompt caching on (the default), `system` is a list of text blocks and some blocks of
 * `tools`, `system` and `messages` carry `cache_control` breakpoints in the Anthropic wire format: a client for an
 * Anthropic-compatible API sends them as they are; any other client may honour or drop them
 * (`withoutCacheControl(request)` drops them all).
 */
export interface ModelRequest {
  model: string;
  maxTokens: number;
  system?: string | TextBlock[];
  /** Wire-shaped history: role and content only. */
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  thinking?: ThinkingParam;
  /** Top-level `reasoning_effort` (Kimi K3). */
  reasoningEffort?: ReasoningEffort;
  /** Structured output for the final text, sent as `output_config.format`. */
  outputFormat?: OutputFormatParam;
  /** Provider request fields the SDK does not model (sent as-is at the top level of the body). */
  extraBody?: Record<string, unknown>;
  /** Cancelled when the query is aborted, interrupted or times out. Clients should pass it to their I/O. */
  signal: AbortSignal;
  /** Per-request deadline in ms, when one is set. The loop enforces it too. */
  timeoutMs?: number;
}

export interface ModelResponse {
  message: AssistantModelMessage;
  stopReason: StopReason | null;
  /** Absent usage counts as zero. */
  usage?: ReportedUsage;
}

// Raw stream events, exactly as the Anthropic Messages API sends them over SSE.

export type RawMessageStartEvent = {
  type: "message_start";
  message: {
    id: string;
    type: "message";
    role: "assistant";
    model: string;
    content: AssistantContentBlock[];
    stop_reason: StopReason | null;
    stop_sequence: string | null;
    usage: ReportedUsage & Record<string, unknown>;
  };
};

export type RawContentBlockStartEvent = {
  type: "content_block_start";
  index: number;
  content_block: AssistantContentBlock | { type: string; [key: string]: unknown };
};

export type RawContentBlockDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "citations_delta"; citation: unknown };

export type RawContentBlockDeltaEvent = {
  type: "content_block_delta";
  index: number;
  delta: RawContentBlockDelta;
};
export type RawContentBlockStopEvent = { type: "content_block_stop"; index: number };
export type RawMessageDeltaEvent = {
  type: "message_delta";
  delta: { stop_reason: StopReason | null; stop_sequence?: string | null };
  usage: ReportedUsage & Record<string, unknown>;
};
export type RawMessageStopEvent = { type: "message_stop" };
export type RawPingEvent = { type: "ping" };
export type RawErrorEvent = { type: "error"; error: { type: string; message: string } };

export type RawStreamEvent =
  | RawMessageStartEvent
  | RawContentBlockStartEvent
  | RawContentBlockDeltaEvent
  | RawContentBlockStopEvent
  | RawMessageDeltaEvent
  | RawMessageStopEvent
  | RawPingEvent
  | RawErrorEvent;
