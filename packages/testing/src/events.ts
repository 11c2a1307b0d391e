/**
 * Encoding a scripted turn as the Messages API would send it: a stream of raw events, or one message object.
 * The mock server and the scripted client both use these functions, so both emit exactly the same data.
 */
import type { PromptCacheUsage } from "./prompt-cache.js";
import type { MockTurn } from "./script.js";
import type {
  MockContentBlock,
  MockMessage,
  MockUsage,
  RawContentBlockDelta,
  RawStreamEvent,
} from "./wire.js";

/** Default characters per text/thinking/input_json delta. */
export const DEFAULT_CHUNK_SIZE = 12;

/** What encoding a turn needs beyond the turn itself. */
export interface TurnEncodingOptions {
  /** Response id to use when the turn does not set one. */
  id: string;
  /** The request's `messages` (wire form); sizes the default input_tokens. */
  requestMessages?: unknown;
  /** Characters per delta (default 12). */
  chunkSize?: number;
  /** Input-side usage computed by the prompt-cache simulation; the turn's own usage fields still win. */
  cacheUsage?: PromptCacheUsage;
}

/** The stop reason a turn reports: its own, else `tool_use` if it calls a tool, else `end_turn`. */
export function resolveStopReason(turn: MockTurn): string {
  return turn.stopReason ?? (turn.content.some(block => block.type === "tool_use") ? "tool_use" : "end_turn");
}

/**
 * The usage a turn reports: its own counts over the defaults. Without a cache simulation the defaults are rough
 * ~4-characters-per-token estimates (input: the request's messages only) and zero cache counts; with one
 * (`cacheUsage`), the simulation's input, cache-read and cache-write counts.
 */
export function resolveUsage(
  turn: MockTurn,
  requestMessages?: unknown,
  cacheUsage?: PromptCacheUsage,
): MockUsage {
  const own = turn.usage;
  const usage: MockUsage = {
    input_tokens:
      own?.input_tokens ??
      cacheUsage?.input_tokens ??
      Math.ceil((JSON.stringify(requestMessages) ?? "").length / 4),
    output_tokens: own?.output_tokens ?? Math.ceil(contentChars(turn.content) / 4),
    cache_creation_input_tokens:
      own?.cache_creation_input_tokens ?? cacheUsage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: own?.cache_read_input_tokens ?? cacheUsage?.cache_read_input_tokens ?? 0,
  };
  // The breakdown only describes the simulation's own write count.
  const breakdown =
    own?.cache_creation ??
    (own?.cache_creation_input_tokens === undefined ? cacheUsage?.cache_creation : undefined);
  if (breakdown) usage.cache_creation = { ...breakdown };
  return usage;
}

/** Usage in the order the API sends its keys. */
function orderedUsage(usage: MockUsage, outputTokens: number): MockUsage {
  return {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    ...(usage.cache_creation ? { cache_creation: usage.cache_creation } : {}),
    output_tokens: outputTokens,
  };
}

/** Characters the model "generated": text, thinking, redacted data, tool names and tool input JSON. */
function contentChars(content: MockContentBlock[]): number {
  let chars = 0;
  for (const block of content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "thinking") chars += block.thinking.length;
    else if (block.type === "redacted_thinking") chars += block.data.length;
    else chars += block.name.length + toolInputJson(block.input).length;
  }
  return chars;
}

/** Tool input as JSON; an absent input is sent as `{}`, as the API never omits it. */
function toolInputJson(input: unknown): string {
  return JSON.stringify(input ?? {});
}

/** The complete Messages API response object for a turn (what a non-streaming request returns). */
export function turnToMessage(turn: MockTurn, model: string, options: TurnEncodingOptions): MockMessage {
  const usage = resolveUsage(turn, options.requestMessages, options.cacheUsage);
  return {
    id: turn.id ?? options.id,
    type: "message",
    role: "assistant",
    model: turn.model ?? model,
    // Deep copies, so callers mutating the returned message cannot edit the script.
    content: turn.content.map(block =>
      block.type === "tool_use" ? { ...block, input: structuredClone(block.input ?? {}) } : { ...block },
    ),
    stop_reason: resolveStopReason(turn),
    stop_sequence: null,
    usage: orderedUsage(usage, usage.output_tokens),
  };
}

/**
 * The raw stream events for a turn, in the API's order: message_start, one ping, then per block
 * content_block_start / deltas / content_block_stop, then message_delta (cumulative usage) and message_stop.
 * Tool input JSON always arrives in at least two input_json_delta chunks, so clients must accumulate it.
 */
export function turnToStreamEvents(
  turn: MockTurn,
  model: string,
  options: TurnEncodingOptions,
): RawStreamEvent[] {
  const chunkSize = Math.max(1, Math.floor(options.chunkSize ?? DEFAULT_CHUNK_SIZE));
  const usage = resolveUsage(turn, options.requestMessages, options.cacheUsage);
  const stopReason = resolveStopReason(turn);
  const events: RawStreamEvent[] = [
    {
      type: "message_start",
      message: {
        id: turn.id ?? options.id,
        type: "message",
        role: "assistant",
        model: turn.model ?? model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // The API reports output_tokens: 1 up front; the real count comes in message_delta.
        usage: orderedUsage(usage, 1),
      },
    },
    { type: "ping" },
  ];
  turn.content.forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: emptyBlock(block) });
    for (const delta of blockDeltas(block, chunkSize))
      events.push({ type: "content_block_delta", index, delta });
    events.push({ type: "content_block_stop", index });
  });
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: {
        output_tokens: usage.output_tokens,
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
      },
    },
    { type: "message_stop" },
  );
  return events;
}

/** A block as content_block_start announces it: payload empty, except redacted thinking (sent whole). */
function emptyBlock(block: MockContentBlock): MockContentBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
  }
}

function blockDeltas(block: MockContentBlock, chunkSize: number): RawContentBlockDelta[] {
  switch (block.type) {
    case "text":
      return chunk(block.text, chunkSize).map(text => ({ type: "text_delta", text }));
    case "thinking":
      return [
        ...chunk(block.thinking, chunkSize).map(thinking => ({ type: "thinking_delta" as const, thinking })),
        { type: "signature_delta", signature: block.signature },
      ];
    case "redacted_thinking":
      return [];
    case "tool_use": {
      const json = toolInputJson(block.input);
      // At least two chunks even for tiny inputs: a client that parses each chunk alone must fail here.
      const size = Math.min(chunkSize, Math.ceil([...json].length / 2));
      const parts = chunk(json, size);
      if (parts.length < 2) parts.unshift("");
      return parts.map(partial_json => ({ type: "input_json_delta", partial_json }));
    }
  }
}

/** Splits by code points (never inside a surrogate pair) into pieces of at most `size`. */
function chunk(value: string, size: number): string[] {
  const codePoints = [...value];
  const pieces: string[] = [];
  for (let i = 0; i < codePoints.length; i += size) pieces.push(codePoints.slice(i, i + size).join(""));
  return pieces;
}

/** One event in SSE framing, as the API writes it: `event: <type>\ndata: <json>\n\n`. */
export function encodeSseEvent(event: RawStreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
