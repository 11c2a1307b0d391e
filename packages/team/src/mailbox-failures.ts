/**
 * How the runtime reads a mailbox call that threw. A mailbox marks its errors (see the TeamMailbox port):
 * `transient: true` — the store was unreachable (a dropped connection, a restarting server) and the same call may
 * succeed later: a worker and a waiting lead keep retrying it; `transient: false` — it cannot succeed without a
 * fix (a refused login, a missing schema, no permission): the worker stops and the run fails at once, with that
 * error. Errors without the mark keep the caller's own rule.
 */
export function isTransientFailure(error: unknown): boolean {
  return (error as { transient?: unknown } | null | undefined)?.transient === true;
}

export function isPermanentFailure(error: unknown): boolean {
  return (error as { transient?: unknown } | null | undefined)?.transient === false;
}

/**
 * The wait before the runtime's next try after `failures` consecutive failed mailbox calls: 250 ms doubling to 30 s,
 * drawn from the upper half ([d/2, d]) so workers that failed together do not retry in step.
 */
export function failureBackoffMs(failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(30_000, 250 * 2 ** Math.min(Math.max(failures - 1, 0), 7));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise(resolve => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
