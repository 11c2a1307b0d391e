import type {
  TeamMailbox,
  TeamMailboxWaitOptions,
  TeamMailboxWatch,
  TeamMailboxWatchOptions,
} from "./mailbox.js";

/** A TeamMailboxWatch the adapter feeds: it calls notify() whenever a watched mailbox changed. */
export interface NotifiableMailboxWatch extends TeamMailboxWatch {
  /** Reports a change: pending waits resolve true; with none pending, the next wait() resolves true at once. */
  notify(): void;
  readonly closed: boolean;
}

/**
 * The waiting half of a TeamMailbox.watch() implementation, for adapters (the memory, SQLite and PostgreSQL
 * mailboxes use it): waiters, a "changed since the last wait" flag, timeouts and abort signals. The adapter only
 * decides when to call notify() and what to release in `onClose`.
 */
export function createNotifiableWatch(
  options: TeamMailboxWatchOptions & { onClose?: () => void | Promise<void> } = {},
): NotifiableMailboxWatch {
  let changed = false;
  let closed = false;
  let closing: Promise<void> | undefined;
  const waiters = new Set<(value: boolean) => void>();
  const settleAll = (value: boolean) => {
    for (const resolve of [...waiters]) resolve(value);
  };
  const watch: NotifiableMailboxWatch = {
    get closed() {
      return closed;
    },
    notify() {
      if (closed) return;
      if (waiters.size) settleAll(true);
      else changed = true;
    },
    wait(waitOptions: TeamMailboxWaitOptions = {}) {
      if (closed || waitOptions.signal?.aborted) return Promise.resolve(false);
      if (changed) {
        changed = false;
        return Promise.resolve(true);
      }
      if (waitOptions.timeoutMs !== undefined && waitOptions.timeoutMs <= 0) return Promise.resolve(false);
      return new Promise<boolean>(resolve => {
        const done = (value: boolean) => {
          waiters.delete(done);
          if (timer) clearTimeout(timer);
          waitOptions.signal?.removeEventListener("abort", onAbort);
          resolve(value);
        };
        const onAbort = () => done(false);
        const timer =
          waitOptions.timeoutMs === undefined ? undefined : setTimeout(done, waitOptions.timeoutMs, false);
        waitOptions.signal?.addEventListener("abort", onAbort, { once: true });
        waiters.add(done);
      });
    },
    close() {
      closing ??= (async () => {
        closed = true;
        options.signal?.removeEventListener("abort", onAbort);
        settleAll(false);
        await options.onClose?.();
      })();
      return closing;
    },
  };
  const onAbort = () => {
    void watch.close();
  };
  if (options.signal?.aborted) void watch.close();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  return watch;
}

/** Polling when the mailbox has no watch(): each wait sleeps a little longer (25 ms doubling to 1 s), then says "maybe". */
function pollingWatch(options: TeamMailboxWatchOptions): TeamMailboxWatch {
  let delay = 25;
  const watch = createNotifiableWatch(options);
  return {
    async wait(waitOptions: TeamMailboxWaitOptions = {}) {
      const sleep = Math.min(delay, waitOptions.timeoutMs ?? delay);
      delay = Math.min(delay * 2, 1000);
      await watch.wait({ ...waitOptions, timeoutMs: sleep });
      return !watch.closed && !waitOptions.signal?.aborted;
    },
    close: () => watch.close(),
  };
}

/**
 * The runtime's way to wait for mailbox changes: the mailbox's own watch() when it has one, polling with backoff
 * otherwise (host adapters written before watch() existed keep working).
 */
export async function openMailboxWatch(
  mailbox: TeamMailbox,
  mailboxIds: readonly string[],
  options: TeamMailboxWatchOptions = {},
): Promise<TeamMailboxWatch> {
  if (typeof mailbox.watch === "function") return mailbox.watch(mailboxIds, options);
  return pollingWatch(options);
}
