import { firstAborted, whenAborted } from "./abort-fanout.js";

/**
 * Admission for work items: at most `limit` run at once across the runner, and at most one per mailbox (a member
 * agent keeps mutable conversation state, so its work stays serial). Waiters are served first come, first served,
 * so work starts in handoff order as slots free up. An item waits for its mailbox before it takes a global slot:
 * an item blocked behind its own mailbox never holds a slot another mailbox could use.
 *
 * Admission that does not have to wait (a free mailbox, a free slot) touches no abort signal: the stop signals are
 * listened to only while an item actually waits.
 */
export class WorkScheduler {
  #running = 0;
  readonly #slotWaiters: Array<() => void> = [];
  readonly #mailboxTails = new Map<string, Promise<void>>();

  constructor(readonly limit: number) {}

  /**
   * Resolves with a release function once `mailboxId` is free and a slot is available; rejects with the reason of
   * the first of `signals` that aborts while it waits (or already has).
   */
  async acquire(mailboxId: string, signals: readonly AbortSignal[] = []): Promise<() => void> {
    const aborted = firstAborted(signals);
    if (aborted) throw aborted.reason;
    const releaseMailbox = await this.#lockMailbox(mailboxId, signals);
    try {
      await this.#takeSlot(signals);
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

  async #lockMailbox(mailboxId: string, signals: readonly AbortSignal[]): Promise<() => void> {
    const previous = this.#mailboxTails.get(mailboxId);
    let unlock!: () => void;
    const mine = new Promise<void>(resolve => {
      unlock = resolve;
    });
    const tail = previous ? previous.then(() => mine) : mine;
    this.#mailboxTails.set(mailboxId, tail);
    const release = () => {
      unlock();
      if (this.#mailboxTails.get(mailboxId) === tail) this.#mailboxTails.delete(mailboxId);
    };
    if (!previous) return release;
    try {
      await abortable(previous, signals);
    } catch (error) {
      // Keep the chain intact: whoever queued behind us waits for our predecessor, then for nothing.
      previous.then(release, release);
      throw error;
    }
    return release;
  }

  async #takeSlot(signals: readonly AbortSignal[]): Promise<void> {
    if (this.#running < this.limit) {
      this.#running += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        stopListening();
        this.#running += 1;
        resolve();
      };
      const stopListening = whenAborted(signals, () => {
        const index = this.#slotWaiters.indexOf(grant);
        if (index >= 0) this.#slotWaiters.splice(index, 1);
        reject(firstAborted(signals)?.reason);
      });
      if (firstAborted(signals)) return;
      this.#slotWaiters.push(grant);
    });
  }
}

/** `promise`, or a rejection with the reason of the first of `signals` to abort before it settles. */
function abortable(promise: Promise<void>, signals: readonly AbortSignal[]): Promise<void> {
  if (!signals.length) return promise;
  return new Promise((resolve, reject) => {
    const stopListening = whenAborted(signals, () => reject(firstAborted(signals)?.reason));
    promise.then(
      () => {
        stopListening();
        resolve();
      },
      error => {
        stopListening();
        reject(error);
      },
    );
  });
}
