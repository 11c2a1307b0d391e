/**
 * Anthropic Messages API wire shapes, as this package sends and records them.
 *
 * Defined here rather than imported from `@agent-lattice/core` or `@anthropic-ai/sdk` so the package has no
 * runtime dependencies and cannot drift with the code under test: these types describe the wire, not our SDK.
 * They are structurally compatible with core's `AssistantContentBlock` and `RawStreamEvent`.
 */
import type { PromptCacheOutcome } from "./prompt-cache.js";

/** One content block a scripted assistant turn can contain, in Anthropic's wire shape (snake_case). */
export type MockContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

/** Token usage as the Messages API reports it; every count is present on a mock response. */
export type MockUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** Cache writes by lifetime; present when the prompt-cache simulation counted the request. */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
};

/** The complete (non-streaming) Messages API response object, exactly as `POST /v1/messages` returns it. */
export type MockMessage = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: MockContentBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: MockUsage;
};

/** `message_start`: the message envelope with empty content; opens every stream. */
export type RawMessageStartEvent = { type: "message_start"; message: MockMessage };

/** `content_block_start`: a block with empty payload (or, for redacted thinking, the whole block). */
export type RawContentBlockStartEvent = {
  type: "content_block_start";
  index: number;
  content_block: MockContentBlock;
};

/** The incremental payloads a `content_block_delta` can carry. */
export type RawContentBlockDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string };

/** `content_block_delta`: a piece of the block at `index`. */
export type RawContentBlockDeltaEvent = {
  type: "content_block_delta";
  index: number;
  delta: RawContentBlockDelta;
};

/** `content_block_stop`: the block at `index` is complete. */
export type RawContentBlockStopEvent = { type: "content_block_stop"; index: number };

/** `message_delta`: stop reason and (cumulative) usage, sent once after the last block. */
export type RawMessageDeltaEvent = {
  type: "message_delta";
  delta: { stop_reason: string | null; stop_sequence: string | null };
  usage: MockUsage;
};

/** `message_stop`: the stream is complete. */
export type RawMessageStopEvent = { type: "message_stop" };

/** `ping`: keep-alive the API sends once after `message_start`. */
export type RawPingEvent = { type: "ping" };

/** `error`: an in-stream failure (e.g. overloaded) after a 200 status line. */
export type RawErrorEvent = { type: "error"; error: { type: string; message: string } };

/** Every server-sent event of a Messages stream, as parsed from its `data:` line. */
export type RawStreamEvent =
  | RawMessageStartEvent
  | RawContentBlockStartEvent
  | RawContentBlockDeltaEvent
  | RawContentBlockStopEvent
  | RawMessageDeltaEvent
  | RawMessageStopEvent
  | RawPingEvent
  | RawErrorEvent;

/** The JSON body of an Anthropic HTTP error response. */
export type AnthropicErrorBody = {
  type: "error";
  error: { type: string; message: string };
  request_id?: string;
};

/**
 * One `POST /v1/messages` as the mock server received it: `path` is the request target as sent (path and
 * query), header names are lower-cased (repeated headers joined with ", "), `body` is the parsed JSON and
 * `receivedAt` is `Date.now()` when the body finished arriving.
 */
export type RecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  receivedAt: number;
  /** What the simulated prompt cache did with the request (servers started with `promptCache` only). */
  promptCache?: PromptCacheOutcome;
};
