import type { ModelRequestData } from "@agent-lattice/core";
import { generationInput } from "./payloads.js";

/**
 * A generation's input as the JSON text @langfuse/tracing would make of it, without serialising the whole history
 * on every turn.
 *
 * Each model turn's input is the request with the run's whole history, and @langfuse/tracing JSON.stringify()s
 * it into the span's input attribute: O(turns²) work on the agent's thread over a run, the largest part of what
 * the adapter costs it. But the history is append-only and its messages are reused from turn to turn (core
 * re-wraps an assistant message each turn, keeping its `content` array). So each message's JSON (and each content
 * array's) is made once and kept beside the object (a WeakMap: it goes when the message does), and a turn's input
 * is assembled from those pieces: the same text, byte for byte, that JSON.stringify(input) gives, which
 * @langfuse/tracing passes through as it is. Like every tracer that maps events after onEvent returns, this relies
 * on emitted messages not being changed afterwards; a redaction hook that returns copies makes them new.
 */
export class HistoryJson {
  readonly #json = new WeakMap<object, string>();
  /** The last system message's JSON: it is rebuilt (as text) for every request, and rarely changes. */
  #system: { content: string; text: string } | undefined;

  /** JSON.stringify(generationInput(request)). */
  input(request: ModelRequestData): string {
    const input = generationInput(request) as { messages: unknown[] };
    const parts = input.messages.map(message => this.#message(message));
    // The messages key keeps its place in the object (overwriting a key does not move it).
    return splice({ ...input, messages: TOKEN }, `[${parts.join(",")}]`) ?? JSON.stringify(input);
  }

  #message(message: unknown): string {
    if (typeof message !== "object" || message === null || hasToJSON(message)) return json(message);
    const known = this.#json.get(message);
    if (known !== undefined) return known;
    const { content, role } = message as { content?: unknown; role?: unknown };
    if (role === "system" && typeof content === "string" && Object.keys(message).length === 2) {
      if (this.#system?.content !== content) this.#system = { content, text: json(message) };
      return this.#system.text;
    }
    let text: string | undefined;
    if (typeof content === "object" && content !== null && !hasToJSON(content)) {
      let contentText = this.#json.get(content);
      if (contentText === undefined) {
        contentText = json(content);
        this.#json.set(content, contentText);
      }
      text = splice({ ...message, content: TOKEN }, contentText);
    }
    text ??= json(message);
    this.#json.set(message, text);
    return text;
  }
}

/** A string no message holds: where an already-serialised part goes. */
const TOKEN = "\u0000agent-lattice:json\u0000";
const TOKEN_JSON = JSON.stringify(TOKEN);

/** JSON.stringify(value) with the one TOKEN in it replaced by `inner`; undefined when TOKEN is not there once. */
function splice(value: object, inner: string): string | undefined {
  const outer = JSON.stringify(value);
  const at = outer.indexOf(TOKEN_JSON);
  if (at < 0 || outer.indexOf(TOKEN_JSON, at + 1) >= 0) return undefined;
  return outer.slice(0, at) + inner + outer.slice(at + TOKEN_JSON.length);
}

/** JSON.stringify as an array element: undefined (and functions) become null. */
function json(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

function hasToJSON(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}
