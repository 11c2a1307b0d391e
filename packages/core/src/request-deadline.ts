import { TimeoutError } from "./errors.js";

/** Shared between a running query and Agent.interrupt(). */
export interface QueryControl {
  interrupted: boolean;
  /** Aborted by interrupt(): delegated agents started by this query listen to it. */
  interruptController: AbortController;
  /** The in-flight model request; interrupt() aborts only it. */
  request: RequestScope | undefined;
  /** Set by the running loop: ends the query early (its consumer called return() while a step was pending). */
  stop?: (() => void) | undefined;
}

/**
 * Opens the cancellation scopes of one query's model requests, one request at a time. A single listener on the
 * query's signal serves every request of the query: a listener added and removed per request was a measurable
 * part of a short turn. close() detaches it when the query's turns end.
 */
export class RequestScopes {
  readonly #onQueryAbort = () => this.control.request?.abort(this.querySignal.reason);

  constructor(
    private readonly querySignal: AbortSignal,
    private readonly control: QueryControl,
    private readonly timeoutMs: number | undefined,
  ) {
    querySignal.addEventListener("abort", this.#onQueryAbort, { once: true });
  }

  open(): RequestScope {
    const scope = new RequestScope(this.control, this.timeoutMs);
    if (this.querySignal.aborted) scope.abort(this.querySignal.reason);
    return scope;
  }

  close(): void {
    this.querySignal.removeEventListener("abort", this.#onQueryAbort);
  }
}

/**
 * The cancellation scope of one model request: aborted by the query's signal, by interrupt(), or by its own
 * deadline (requestTimeoutMs). Every abort goes through abort(), which also tells `onAbort` (the loop's pending
 * read of the model stream), so nothing needs a listener of its own. dispose() clears the timer, so nothing
 * outlives the request.
 */
export class RequestScope {
  readonly controller = new AbortController();
  /** Told when the request is aborted, with the reason. */
  onAbort: ((reason: unknown) => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly control: QueryControl,
    timeoutMs: number | undefined,
  ) {
    if (timeoutMs !== undefined) {
      this.#timer = setTimeout(() => this.abort(new TimeoutError(timeoutMs)), timeoutMs);
    }
    control.request = this;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** The TimeoutError when this request's own deadline fired. */
  get timeout(): TimeoutError | undefined {
    const reason = this.controller.signal.reason;
    return reason instanceof TimeoutError ? reason : undefined;
  }

  abort(reason: unknown): void {
    if (this.controller.signal.aborted) return;
    this.controller.abort(reason);
    this.onAbort?.(reason);
  }

  /**
   * Settles with `promise`, or rejects with the abort reason as soon as the request is aborted: the loop must not
   * stall on a ModelClient that ignores its signal. The losing promise is abandoned, not cancelled.
   */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.aborted) {
      promise.catch(() => {});
      return Promise.reject(this.controller.signal.reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.onAbort = reject;
      promise.then(resolve, reject);
    });
  }

  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.onAbort = undefined;
    if (this.control.request === this) this.control.request = undefined;
  }
}
