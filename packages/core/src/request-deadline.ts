import { TimeoutError } from "./errors.js";

/** Shared between a running query and Agent.interrupt(). */
export interface QueryControl {
  interrupted: boolean;
  /** Aborted by interrupt(): delegated agents started by this query listen to it. */
  interruptController: AbortController;
  /** Aborts only the in-flight model request. */
  requestController: AbortController | undefined;
}

/**
 * The cancellation scope of one model request: aborted by the query's signal, by interrupt(), or by its own
 * deadline (requestTimeoutMs). dispose() clears the timer and listeners, so nothing outlives the request.
 */
export class RequestScope {
  readonly controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onQueryAbort: () => void;

  constructor(
    private readonly querySignal: AbortSignal,
    private readonly control: QueryControl,
    timeoutMs: number | undefined,
  ) {
    this.#onQueryAbort = () => this.controller.abort(querySignal.reason);
    if (querySignal.aborted) this.#onQueryAbort();
    else querySignal.addEventListener("abort", this.#onQueryAbort, { once: true });
    if (timeoutMs !== undefined) {
      this.#timer = setTimeout(() => this.controller.abort(new TimeoutError(timeoutMs)), timeoutMs);
    }
    control.requestController = this.controller;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The TimeoutError when this request's own deadline fired. */
  get timeout(): TimeoutError | undefined {
    const reason = this.controller.signal.reason;
    return reason instanceof TimeoutError ? reason : undefined;
  }

  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.querySignal.removeEventListener("abort", this.#onQueryAbort);
    if (this.control.requestController === this.controller) this.control.requestController = undefined;
  }
}
