/**
 * When a hosted tracer does its deferred work (mapping events, handing them to a worker): once the agent has
 * been quiet — no trace event for `quietMs` — or `maxDelayMs` after the first event of a batch, whichever comes
 * first.
 *
 * An agent emits its events in bursts (a model turn's request, its answer, the tool calls and results) separated
 * by waits on the model. Work done inside a burst lengthens the agent's step; work done in the wait costs it
 * nothing where a core is free, and where none is, still does not sit between the model's answer and the agent's
 * next request. A quiet period is the one sign of a wait that costs nothing to observe, so the work waits for it:
 * with a remote model (hundreds of ms a turn) each turn's events are handled early in its wait; a loop that never
 * pauses (a local model, a replay) is served every `maxDelayMs`, and its end is a pause. flush() and close() do the
 * work at once. Timers are made per batch and refreshed per event; they keep the process alive as the work is due.
 */
export interface QuietTiming {
  /**
   * How long without a new event counts as a pause (default 50 ms: far below a model's latency, above the gaps a
   * busy agent's thread sees when a loaded machine deschedules it, which would otherwise put work inside its step).
   */
  quietMs?: number;
  /** The longest an event waits for a pause (default 1000 ms). */
  maxDelayMs?: number;
}

export const DEFAULT_QUIET_MS = 50;
export const DEFAULT_MAX_DELAY_MS = 1000;

export class QuietTimer {
  readonly #quietMs: number;
  readonly #maxDelayMs: number;
  /** Armed by a batch's first event, re-armed (refresh()) by each later one. */
  #quiet: ReturnType<typeof setTimeout> | undefined;
  /** Armed by a batch's first event. */
  #deadline: ReturnType<typeof setTimeout> | undefined;
  readonly #fire = () => this.#run();

  constructor(
    private readonly work: () => void,
    timing: QuietTiming = {},
  ) {
    this.#quietMs = timing.quietMs ?? DEFAULT_QUIET_MS;
    this.#maxDelayMs = timing.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  }

  /** An event arrived: the work runs after the next pause (or the batch's deadline). */
  touch(): void {
    if (this.#deadline === undefined) this.#deadline = setTimeout(this.#fire, this.#maxDelayMs);
    if (this.#quiet === undefined) this.#quiet = setTimeout(this.#fire, this.#quietMs);
    else this.#quiet.refresh();
  }

  /** The work is being done now (flush, close): nothing is due. */
  cancel(): void {
    if (this.#deadline !== undefined) clearTimeout(this.#deadline);
    if (this.#quiet !== undefined) clearTimeout(this.#quiet);
    // A cleared timer cannot be re-armed: the next batch makes new ones.
    this.#deadline = undefined;
    this.#quiet = undefined;
  }

  #run(): void {
    this.cancel();
    this.work();
  }
}
