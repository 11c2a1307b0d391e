/**
 * Carries messages from tool handlers (e.g. a delegated agent's progress) to the query's consumer while a
 * tool batch runs. push() resolves once the consumer has taken the message, so a slow consumer slows the
 * producer down instead of letting messages pile up: back-pressure reaches into nested agents.
 */
export class EventChannel<T> {
  readonly #queue: Array<{ item: T; taken: () => void }> = [];
  #wake: (() => void) | undefined;

  push(item: T): Promise<void> {
    return new Promise(taken => {
      this.#queue.push({ item, taken });
      this.#wake?.();
    });
  }

  /** Yields pushed items until `work` settles (and everything pushed before that), then returns its outcome. */
  async *drainUntil<R>(work: Promise<R>): AsyncGenerator<T, R, undefined> {
    let settled = false;
    const done = work.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    while (true) {
      const next = this.#queue.shift();
      if (next) {
        yield next.item;
        next.taken();
        continue;
      }
      if (settled) return await work;
      await Promise.race([done, new Promise<void>(resolve => (this.#wake = resolve))]);
      this.#wake = undefined;
    }
  }
}
