import { closedError, faultOf, permanentError, unavailableError } from "./faults.js";

/** One retry of a mailbox call after a transient failure, as `onRetry` reports it. */
export interface PostgresMailboxRetry {
  /**
   * The call being retried: a TeamMailbox method ("claimNext", "complete", "get", …), "open" (creating the mailbox:
   * its migrations) or "listen" (watch()'s LISTEN connection, which reconnects in the background).
   */
  operation: string;
  /** 1 for the first retry of this call. */
  attempt: number;
  /** How long it waits before this retry. */
  delayMs: number;
  /** What failed: the connection error from node-postgres or the socket. */
  error: unknown;
}

/** The first delay (the second retry; the first one is immediate) and the cap. */
export const RETRY_FIRST_DELAY_MS = 100;
export const RETRY_MAX_DELAY_MS = 5_000;
export const DEFAULT_RECONNECT_TIMEOUT_MS = 60_000;

/**
 * The delay before retry `attempt` (1-based). The first retry goes at once: after one dropped connection the server
 * is usually up and a new connection works. Then 100 ms doubling to 5 s, each drawn uniformly from the upper half of
 * that ([d/2, d]) so processes that lost the server together do not all come back in the same instant.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  if (attempt <= 1) return 0;
  const ceiling = Math.min(RETRY_MAX_DELAY_MS, RETRY_FIRST_DELAY_MS * 2 ** (attempt - 2));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Runs the mailbox's database calls with reconnection: a call that fails transiently (see faults.ts) is tried again
 * on a new connection with backoff until it succeeds or `timeoutMs` has passed since its first try (then it throws
 * `postgres_mailbox_unavailable`); a permanent failure throws its typed error at once; other errors pass through.
 * The call learns which try it is, so a retry can first check whether an earlier try committed (claims, settles).
 */
export class Reconnector {
  readonly #closing = new AbortController();

  constructor(
    readonly timeoutMs: number,
    readonly schema: string,
    readonly onRetry: ((retry: PostgresMailboxRetry) => void) | undefined,
  ) {}

  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** Ends every wait for a retry: those calls throw `postgres_mailbox_closed`. */
  close(): void {
    this.#closing.abort();
  }

  /**
   * `call(retry, previous)`: `retry` is 0 on the first try, then 1, 2, …; `previous` is the error of the try before.
   */
  async run<T>(operation: string, call: (retry: number, previous: unknown) => Promise<T>): Promise<T> {
    const started = performance.now();
    let previous: unknown;
    for (let retry = 0; ; retry++) {
      try {
        return await call(retry, previous);
      } catch (error) {
        const fault = faultOf(error);
        if (fault === "permanent") throw permanentError(error, this.schema);
        if (fault !== "transient") throw error;
        previous = error;
        const delayMs = retryDelayMs(retry + 1);
        const elapsed = performance.now() - started;
        if (elapsed + delayMs > this.timeoutMs) throw unavailableError(operation, elapsed, error);
        this.report({ operation, attempt: retry + 1, delayMs, error });
        if (!(await this.sleep(delayMs, true))) throw closedError(operation, error);
      }
    }
  }

  report(retry: PostgresMailboxRetry): void {
    try {
      this.onRetry?.(retry);
    } catch {
      // An observer's failure must not change what the mailbox does.
    }
  }

  /**
   * Waits `ms`; false when the mailbox was closed meanwhile. `held`: the timer keeps the process alive (a caller is
   * awaiting the call); background reconnects (the listener) do not.
   */
  sleep(ms: number, held: boolean): Promise<boolean> {
    const signal = this.#closing.signal;
    if (signal.aborted) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise(resolve => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(done, ms, true);
      if (!held) timer.unref?.();
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
