import type { ContextTraceEvent } from "../trace-events.js";

/**
 * Where a hosted tracer's onEvent puts events: they are mapped on the next turn of the event loop (setImmediate),
 * all that arrived meanwhile in one go, not inside the agent's step. By then the agent has usually sent its next
 * model request, so the mapping and the library's own work run while it waits on the network. Until the tracer's
 * library has loaded (it is imported when the tracer is created), events wait here in order.
 */
export class DeferredEvents {
  #queue: ContextTraceEvent[] = [];
  #scheduled = false;
  #handle: ((event: ContextTraceEvent) => void) | undefined;
  #discarded = false;

  /** `onError` hears of an event the handler threw on (the others are still handled). */
  constructor(private readonly onError: (event: ContextTraceEvent, error: unknown) => void) {}

  push(event: ContextTraceEvent): void {
    if (this.#discarded) return;
    this.#queue.push(event);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.drain();
      });
    }
  }

  /** From now on events go to `handle`; those waiting are handled at once. */
  start(handle: (event: ContextTraceEvent) => void): void {
    this.#handle = handle;
    this.drain();
  }

  /** The library could not load: drops what waits and what comes (the loss was reported where it failed). */
  discard(): void {
    this.#discarded = true;
    this.#queue = [];
  }

  /** Handles what waits now (flush() and close() call it before draining the library). */
  drain(): void {
    const handle = this.#handle;
    if (!handle) return; // still loading: start() drains
    const events = this.#queue;
    this.#queue = [];
    for (const event of events) {
      try {
        handle(event);
      } catch (error) {
        this.onError(event, error);
      }
    }
  }
}
