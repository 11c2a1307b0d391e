/**
 * An AbortSignal that fires when any of `signals` does, with a release() that detaches it. Used instead of
 * AbortSignal.any(): a host may pass one long-lived signal (a server's shutdown signal) to every query, and each
 * query must detach from it when it ends rather than leave a listener or a dependent signal behind.
 */
export function linkSignals(signals: readonly AbortSignal[]): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const listeners: Array<[AbortSignal, () => void]> = [];
  const release = () => {
    for (const [signal, listener] of listeners.splice(0)) signal.removeEventListener("abort", listener);
  };
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    const listener = () => {
      controller.abort(signal.reason);
      release();
    };
    signal.addEventListener("abort", listener, { once: true });
    listeners.push([signal, listener]);
  }
  if (controller.signal.aborted) release();
  return { signal: controller.signal, release };
}
