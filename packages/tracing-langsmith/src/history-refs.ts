import type { ContextTraceEvent } from "@agent-lattice/core";

/**
 * Sending each model_request's history to the worker once, not once per turn.
 *
 * A `model_request` event carries the run's whole history, so posting every one to the worker thread structured-
 * clones O(turns²) messages over a run: on the agent's thread, the largest part of what the tracer costs it. But the
 * history is append-only and its message objects are reused from turn to turn (core copies only an assistant
 * message's envelope, keeping its `content` array, and the message carrying the moving cache breakpoint). So the
 * encoder, on the agent's side, sends a message (or a message's content array) in full the first time a run's
 * request carries it and as a number after that; the decoder, in the worker, puts the history back together. Both
 * keep their tables per run and drop them when the run ends. Like every tracer that hands events on after onEvent
 * returns, this relies on events (and the messages in them) not being changed once emitted; a redaction hook that
 * returns copies simply makes every message new.
 */
export type WireMessage =
  /** A message sent before in this run. */
  | number
  /** A message sent in full (`id` set when it is an object that later requests may repeat). */
  | { id?: number; message: unknown }
  /** A new message envelope whose content array was sent before (an assistant message, re-wrapped each turn). */
  | { id: number; message: Record<string, unknown>; content: number };

/** A model_request's history as sent: the event goes with `messages: []` and the history beside it. */
export interface WireEvent {
  event: ContextTraceEvent;
  history?: WireMessage[];
}

/** Whether the event ends its run (its tables can be dropped on both sides). */
function endsRun(event: ContextTraceEvent): boolean {
  return (
    event.type === "result" || (event.type === "error" && (event.data as { fatal?: boolean }).fatal === true)
  );
}

/** The agent thread's side. */
export class HistoryEncoder {
  readonly #runs = new Map<string, { ids: WeakMap<object, number>; next: number }>();

  encode(event: ContextTraceEvent): WireEvent {
    if (endsRun(event)) this.#runs.delete(event.run_id);
    if (event.type !== "model_request" || !Array.isArray(event.data.messages)) return { event };
    let run = this.#runs.get(event.run_id);
    if (!run) {
      run = { ids: new WeakMap(), next: 0 };
      this.#runs.set(event.run_id, run);
    }
    const { ids } = run;
    const history = event.data.messages.map((message): WireMessage => {
      if (typeof message !== "object" || message === null) return { message };
      const known = ids.get(message);
      if (known !== undefined) return known;
      const id = run.next++;
      ids.set(message, id);
      const content = (message as { content?: unknown }).content;
      if (typeof content === "object" && content !== null) {
        const contentId = ids.get(content);
        if (contentId !== undefined)
          return { id, message: { ...message, content: undefined }, content: contentId };
        ids.set(content, run.next++);
      }
      return { id, message };
    });
    return { event: { ...event, data: { ...event.data, messages: [] } } as ContextTraceEvent, history };
  }

  /** A batch that never reached the worker: its runs start over (their next requests are sent in full). */
  forget(events: readonly ContextTraceEvent[]): void {
    for (const event of events) this.#runs.delete(event.run_id);
  }
}

/** The worker's side. */
export class HistoryDecoder {
  readonly #runs = new Map<string, Map<number, unknown>>();

  /** The event as emitted; `onMissing` hears of a reference the worker never received (history left short). */
  decode({ event, history }: WireEvent, onMissing: (line: string) => void): ContextTraceEvent {
    if (endsRun(event)) this.#runs.delete(event.run_id);
    if (!history || event.type !== "model_request") return event;
    let table = this.#runs.get(event.run_id);
    if (!table) {
      table = new Map();
      this.#runs.set(event.run_id, table);
    }
    const messages: unknown[] = [];
    let missing = 0;
    for (const wire of history) {
      if (typeof wire === "number") {
        if (table.has(wire)) messages.push(table.get(wire));
        else missing++;
        continue;
      }
      let { message } = wire;
      if ("content" in wire) {
        if (!table.has(wire.content)) {
          missing++;
          continue;
        }
        message = { ...wire.message, content: table.get(wire.content) };
      } else if (typeof message === "object" && message !== null) {
        const content = (message as { content?: unknown }).content;
        // The encoder numbered the content array right after its message.
        if (wire.id !== undefined && typeof content === "object" && content !== null)
          table.set(wire.id + 1, content);
      }
      if (wire.id !== undefined) table.set(wire.id, message);
      messages.push(message);
    }
    if (missing) onMissing(`${missing} history messages of run ${event.run_id} were lost before the worker`);
    return { ...event, data: { ...event.data, messages } } as ContextTraceEvent;
  }
}
