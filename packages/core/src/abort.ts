/**
 * Races `promise` against `signal`: the loop must not stall on a ModelClient or handler that ignores its
 * signal. Losing the race abandons the promise (its eventual rejection is swallowed), it does not cancel it.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      value => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      error => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * An async iterator whose pending next() rejects as soon as abort() is called, for the same reason as
 * raceAbort(): a ModelClient's stream may ignore its signal. The owner of the cancellation calls abort() (no
 * listener, no racing promise per event: those cost more than the rest of the loop's handling of an event).
 */
export class AbortableIterator<T> {
  #rejectPending: ((reason: unknown) => void) | undefined;
  #aborted = false;
  #reason: unknown;

  constructor(readonly source: AsyncIterator<T>) {}

  next(): Promise<IteratorResult<T>> {
    if (this.#aborted) return Promise.reject(this.#reason);
    return new Promise<IteratorResult<T>>((resolve, reject) => {
      this.#rejectPending = reject;
      // After an abort won, the source's late outcome settles an already-settled promise: ignored, not unhandled.
      this.source.next().then(resolve, reject);
    });
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#rejectPending?.(reason);
  }
}
