/**
 * Carries messages from tool handlers (e.g. a delegated agent's progress) to the query's consumer while a
 * tool batch runs. push() resolves once the consumer has taken the message, so a slow consumer slows the
 * producer down instead of letting messages pile up: back-pressure reaches into nested agents. When the consumer
 * is gone (the query ended early), close() releases every waiting producer and later pushes are dropped, so a
 * nested agent never waits forever for a reader that left.
 */
export class EventChannel<T> {
  readonly #queue: Array<{ item: T; taken: () => void }> = [];
  #wake: (() => void) | undefined;
  #closed = false;

  push(item: T): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise(taken => {
      this.#queue.push({ item, taken });
      this.#wake?.();
    });
  }

  /** Drops what is queued (releasing its producers) and every later push. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#queue.splice(0)) entry.taken();
    this.#wake?.();
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
        try {
          yield next.item;
        } finally {
          next.taken(); // also when the consumer stops here: the producer must not wait for it
        }
        continue;
      }
      if (settled) return await work;
      await Promise.race([done, new Promise<void>(resolve => (this.#wake = resolve))]);
      this.#wake = undefined;
    }
  }
}
