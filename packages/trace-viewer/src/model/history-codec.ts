import type { TraceEvent } from "./trace-event.js";

/**
 * Every model_request carries the whole conversation so far, so a run's requests grow quadratically: a 50-turn
 * run re-sends its first message 50 times. The page embeds each request as the number of leading messages it
 * shares with the previous request of the same run plus the messages after them, and the page restores the full
 * list before anything reads it. Lossless (messages are compared as JSON text; anything else is left as it is),
 * and it needs the events in the same order on both sides, which the page data and the live stream guarantee.
 */

/** Marks an encoded event: `keep` leading messages of the run's previous request, then `tail`. */
export const HISTORY_KEY = "$history";

interface EncodedHistory {
  keep: number;
  tail: unknown[];
}

type MaybeEncoded = TraceEvent & { [HISTORY_KEY]?: EncodedHistory };

function messagesOf(event: TraceEvent): unknown[] | undefined {
  if (event.type !== "model_request" || typeof event.data !== "object" || event.data === null)
    return undefined;
  const messages = (event.data as { messages?: unknown }).messages;
  return Array.isArray(messages) ? messages : undefined;
}

export class HistoryEncoder {
  /** run_id → the JSON text of each message of its last request. */
  private readonly previous = new Map<string, string[]>();

  encode(event: TraceEvent): TraceEvent {
    const messages = messagesOf(event);
    if (!messages) return event;
    const texts = messages.map(message => JSON.stringify(message) ?? "null");
    const before = this.previous.get(event.run_id) ?? [];
    this.previous.set(event.run_id, texts);
    let keep = 0;
    while (keep < before.length && keep < texts.length && before[keep] === texts[keep]) keep++;
    if (keep === 0) return event;
    const { messages: _all, ...data } = event.data as Record<string, unknown>;
    const encoded: MaybeEncoded = { ...event, data, [HISTORY_KEY]: { keep, tail: messages.slice(keep) } };
    return encoded;
  }
}

export class HistoryDecoder {
  /** run_id → the messages of its last request (shared, never mutated). */
  private readonly previous = new Map<string, unknown[]>();

  /** Restores `event` in place of its encoded form (a new object when it was encoded). */
  decode(input: TraceEvent): TraceEvent {
    let event: TraceEvent = input;
    const history = (input as MaybeEncoded)[HISTORY_KEY];
    if (history && typeof history === "object" && Array.isArray(history.tail)) {
      const before = this.previous.get(input.run_id) ?? [];
      const { [HISTORY_KEY]: _history, ...rest } = input as MaybeEncoded;
      const data = { ...(input.data as Record<string, unknown>) };
      data.messages = before.slice(0, history.keep).concat(history.tail);
      event = { ...rest, data };
    }
    const messages = messagesOf(event);
    if (messages) this.previous.set(event.run_id, messages);
    return event;
  }
}
