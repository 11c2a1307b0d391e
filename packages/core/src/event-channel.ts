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
      this.#wakeDrain();
    });
  }

  /** Drops what is queued (releasing its producers) and every later push. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#queue.splice(0)) entry.taken();
    this.#wakeDrain();
  }

  /** Ends the drain's wait: an item was pushed, the channel closed, or the work it drains until settled. */
  #wakeDrain(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Yields pushed items until `work` settles (and everything pushed before that), then returns its outcome. */
  async *drainUntil<R>(work: Promise<R>): AsyncGenerator<T, R, undefined> {
    let settled = false;
    // The work's settling wakes the drain like a push does: one waiter per wait, not a race that subscribes to
    // the work again each time the queue runs dry.
    const onSettled = () => {
      settled = true;
      this.#wakeDrain();
    };
    work.then(onSettled, onSettled);
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
      await new Promise<void>(resolve => {
        this.#wake = resolve;
      });
    }
  }
}
