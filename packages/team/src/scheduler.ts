/**
 * Admission for work items: at most `limit` run at once across the runner, and at most one per mailbox (a member
 * agent keeps mutable conversation state, so its work stays serial). Waiters are served first come, first served,
 * so work starts in handoff order as slots free up. An item waits for its mailbox before it takes a global slot:
 * an item blocked behind its own mailbox never holds a slot another mailbox could use.
 */
export class WorkScheduler {
  #running = 0;
  readonly #slotWaiters: Array<() => void> = [];
  readonly #mailboxTails = new Map<string, Promise<void>>();

  constructor(readonly limit: number) {}

  /** Resolves with a release function once `mailboxId` is free and a slot is available; rejects on abort. */
  async acquire(mailboxId: string, signal?: AbortSignal): Promise<() => void> {
    const releaseMailbox = await this.#lockMailbox(mailboxId, signal);
    try {
      await this.#takeSlot(signal);
    } catch (error) {
      releaseMailbox();
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= 1;
      this.#slotWaiters.shift()?.();
      releaseMailbox();
    };
  }

  async #lockMailbox(mailboxId: string, signal: AbortSignal | undefined): Promise<() => void> {
    const previous = this.#mailboxTails.get(mailboxId) ?? Promise.resolve();
    let unlock!: () => void;
    const mine = new Promise<void>(resolve => {
      unlock = resolve;
    });
    const tail = previous.then(() => mine);
    this.#mailboxTails.set(mailboxId, tail);
    const release = () => {
      unlock();
      if (this.#mailboxTails.get(mailboxId) === tail) this.#mailboxTails.delete(mailboxId);
    };
    try {
      await abortable(previous, signal);
    } catch (error) {
      // Keep the chain intact: whoever queued behind us waits for our predecessor, then for nothing.
      previous.then(release, release);
      throw error;
    }
    return release;
  }

  async #takeSlot(signal: AbortSignal | undefined): Promise<void> {
    if (this.#running < this.limit) {
      this.#running += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        this.#running += 1;
        resolve();
      };
      const onAbort = () => {
        const index = this.#slotWaiters.indexOf(grant);
        if (index >= 0) this.#slotWaiters.splice(index, 1);
        reject(signal!.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#slotWaiters.push(grant);
    });
  }
}

function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      error => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
