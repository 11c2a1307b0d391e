import type { ContextTraceEvent } from "../trace-events.js";
import { QuietTimer, type QuietTiming } from "./quiet-timer.js";

/**
 * Where a hosted tracer's onEvent puts events: onEvent only appends the event here; they are mapped in one batch
 * once the agent pauses (quiet-timer.ts: no event for a while, typically while it waits on its model) or at the
 * latest a second after the batch's first, not after each of the agent's steps. flush() and close() drain at once.
 * Until the tracer's library has loaded (it is imported when the tracer is created), events wait here in order.
 */
export class DeferredEvents {
  #queue: ContextTraceEvent[] = [];
  readonly #timer: QuietTimer;
  #handle: ((event: ContextTraceEvent) => void) | undefined;
  #discarded = false;

  /** `onError` hears of an event the handler threw on (the others are still handled). */
  constructor(
    private readonly onError: (event: ContextTraceEvent, error: unknown) => void,
    timing?: QuietTiming,
  ) {
    this.#timer = new QuietTimer(() => this.drain(), timing);
  }

  push(event: ContextTraceEvent): void {
    if (this.#discarded) return;
    this.#queue.push(event);
    this.#timer.touch();
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
    this.#timer.cancel();
  }

  /** Handles what waits now (flush() and close() call it before draining the library). */
  drain(): void {
    const handle = this.#handle;
    if (!handle) return; // still loading: start() drains
    this.#timer.cancel();
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
