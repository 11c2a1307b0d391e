/**
 * Scripts: what the mock server (or scripted client) answers, one item per model request.
 * A script item is either a model turn or a fault; the helpers below build both tersely, with the error
 * types and messages the real Anthropic API uses, so code under test sees what production would send.
 */
import type { MockContentBlock, MockUsage, RecordedRequest } from "./wire.js";

/** A successful assistant turn: the content the model "produces" plus optional response metadata. */
export interface MockTurn {
  kind: "turn";
  content: MockContentBlock[];
  /** Default `"tool_use"` when content has a tool_use block, else `"end_turn"`. */
  stopReason?: string;
  /**
   * Reported usage. Defaults: input_tokens = ceil(JSON.stringify(request messages).length / 4),
   * output_tokens = ceil(content characters / 4), cache counts = 0; with the prompt-cache simulation on, its
   * input and cache counts. The fields given here win.
   */
  usage?: Partial<MockUsage>;
  /** Provider response id; default `msg_mock_<counter>`, unique per server or client. */
  id?: string;
  /** The model that served the turn; default the requested model. */
  model?: string;
  /** Milliseconds to wait before sending headers (server) or resolving / yielding (client). */
  delayMs?: number;
  /** Milliseconds to wait between stream events (streaming only). */
  chunkDelayMs?: number;
}

/** A scripted failure, reproducing how the real API (or the network) fails. */
export type MockFault =
  /** An HTTP error response with Anthropic's error JSON body. */
  | {
      kind: "http_error";
      status: number;
      errorType: string;
      message: string;
      headers?: Record<string, string>;
    }
  /** A 200 stream that sends the first `afterEvents` events of `turn`, then an SSE `error` event, then ends. */
  | { kind: "stream_error"; turn: MockTurn; afterEvents: number; errorType: string; message: string }
  /** A 200 stream that sends the first `afterEvents` events of `turn`, then destroys the socket. */
  | { kind: "drop_connection"; turn: MockTurn; afterEvents: number }
  /** Accepts the request and never answers, until the client aborts or the server closes. */
  | { kind: "hang" };

/** One scripted reply: a turn or a fault. */
export type MockScriptItem = MockTurn | MockFault;

/**
 * Computes the reply for a request dynamically. `index` is the request's 0-based position in
 * `server.requests`. Used when the script queue is empty.
 */
export type MockResponder = (
  request: RecordedRequest,
  index: number,
) => MockScriptItem | Promise<MockScriptItem>;

/** Options accepted by the turn helpers: every MockTurn field except `kind` and `content`. */
export type MockTurnOptions = Omit<MockTurn, "kind" | "content">;

// Tool-use ids must be unique across the whole process (a conversation may mix several scripts and clients),
// so the counter lives on globalThis: two copies of this module (src and dist) still share it.
const TOOL_ID_COUNTER = Symbol.for("@agent-lattice/testing/tool-use-counter");
function nextToolUseId(): string {
  const holder = globalThis as unknown as Record<symbol, number | undefined>;
  const next = (holder[TOOL_ID_COUNTER] ?? 0) + 1;
  holder[TOOL_ID_COUNTER] = next;
  return `toolu_mock_${next}`;
}

/** A text block. */
export function text(text: string): MockContentBlock {
  return { type: "text", text };
}

/** A tool_use block; the default id `toolu_mock_<n>` is unique within the process. */
export function toolUse(name: string, input: unknown, id?: string): MockContentBlock {
  return { type: "tool_use", id: id ?? nextToolUseId(), name, input };
}

/** A thinking block; the default signature is derived deterministically from the text (stable snapshots). */
export function thinking(thinking: string, signature?: string): MockContentBlock {
  return { type: "thinking", thinking, signature: signature ?? mockSignature(thinking) };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** 64 base64-alphabet characters seeded by an FNV-1a hash of `text`: opaque-looking like a real signature. */
function mockSignature(text: string): string {
  let state = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 0x01000193) >>> 0;
  let out = "";
  for (let i = 0; i < 64; i++) {
    // xorshift32 keeps the output well mixed without any crypto dependency.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out += BASE64[state & 63];
  }
  return `${out}==`;
}

/** A turn from a string (one text block), one block or several blocks. */
export function turn(
  content: string | MockContentBlock | MockContentBlock[],
  options?: MockTurnOptions,
): MockTurn {
  const blocks = typeof content === "string" ? [text(content)] : Array.isArray(content) ? content : [content];
  return { ...options, kind: "turn", content: blocks };
}

/** A turn with a single text block (stop reason `end_turn`). */
export function textTurn(text: string, options?: MockTurnOptions): MockTurn {
  return turn(text, options);
}

/** A tool call request in a {@link toolTurn}. */
export type MockToolCall = { name: string; input: unknown; id?: string };

/** A turn calling one or more tools (stop reason `tool_use`), optionally preceded by a text block. */
export function toolTurn(
  calls: MockToolCall | MockToolCall[],
  options?: MockTurnOptions & { text?: string },
): MockTurn {
  const { text: leading, ...turnOptions } = options ?? {};
  const blocks = (Array.isArray(calls) ? calls : [calls]).map(call =>
    toolUse(call.name, call.input, call.id),
  );
  return turn(leading === undefined ? blocks : [text(leading), ...blocks], turnOptions);
}

/** Any HTTP error with Anthropic's error body; `headers` are added to the response. */
export function httpError(
  status: number,
  errorType: string,
  message: string,
  headers?: Record<string, string>,
): MockFault {
  return headers
    ? { kind: "http_error", status, errorType, message, headers }
    : { kind: "http_error", status, errorType, message };
}

/** 400 invalid_request_error with `message` (not retried by clients). */
export function invalidRequest(message: string): MockFault {
  return httpError(400, "invalid_request_error", message);
}

/** 400 invalid_request_error "prompt is too long: <tokens> tokens > <max> maximum", as the API words it. */
export function promptTooLong(tokens = 215_000, max = 200_000): MockFault {
  return invalidRequest(`prompt is too long: ${tokens} tokens > ${max} maximum`);
}

/** 401 authentication_error "invalid x-api-key". */
export function unauthorized(): MockFault {
  return httpError(401, "authentication_error", "invalid x-api-key");
}

/**
 * 429 rate_limit_error with `retry-after` in seconds (fractional allowed). The default 0.05 s keeps tests
 * fast: clients that honour retry-after (the official SDK does) retry almost immediately.
 */
export function rateLimited(retryAfterSeconds = 0.05): MockFault {
  return httpError(
    429,
    "rate_limit_error",
    "This request would exceed the rate limit for your organization of 50 requests per minute. " +
      "For details, refer to: https://docs.claude.com/en/api/rate-limits.",
    { "retry-after": String(retryAfterSeconds) },
  );
}

/** 500 api_error "Internal server error" (no retry-after: clients fall back to their own backoff). */
export function serverError(): MockFault {
  return httpError(500, "api_error", "Internal server error");
}

/** 529 overloaded_error "Overloaded"; sets `retry-after` only when given. */
export function overloaded(retryAfterSeconds?: number): MockFault {
  const headers = retryAfterSeconds === undefined ? undefined : { "retry-after": String(retryAfterSeconds) };
  return httpError(529, "overloaded_error", "Overloaded", headers);
}

/** A stream that fails after `afterEvents` events of `turn` with an SSE error event (default: overloaded). */
export function streamError(
  turn: MockTurn,
  afterEvents: number,
  errorType = "overloaded_error",
  message = "Overloaded",
): MockFault {
  return { kind: "stream_error", turn, afterEvents, errorType, message };
}

/** A stream torn after `afterEvents` events of `turn`: the connection is destroyed mid-response. */
export function dropConnection(turn: MockTurn, afterEvents: number): MockFault {
  return { kind: "drop_connection", turn, afterEvents };
}

/** A request that is never answered (exercises client timeouts and aborts). */
export function hang(): MockFault {
  return { kind: "hang" };
}

const STATUS_BY_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * The HTTP status the API uses for an error type (500 when unknown). Used when a stream_error fault meets a
 * non-streaming request: with no stream to break, the failure can only surface as an HTTP error.
 */
export function statusForErrorType(errorType: string): number {
  return STATUS_BY_ERROR_TYPE[errorType] ?? 500;
}
