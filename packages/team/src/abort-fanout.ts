/**
 * Many work items of one run wait on the same few signals (the run's abort, its interrupt). Giving each item its
 * own AbortSignal.any() costs a signal, weak references and a finalizer per item; adding each item's listener to the
 * shared signal trips Node's MaxListenersExceededWarning past ten items. Instead every shared signal gets one
 * listener, which calls the callbacks registered for it.
 */
const callbacksBySignal = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` once, when the first of `signals` aborts (at once when one already has). Returns the
 * unsubscribe function; call it when the callback is no longer wanted, so the signal does not keep it alive.
 */
export function whenAborted(signals: readonly AbortSignal[], callback: () => void): () => void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    unsubscribe();
    callback();
  };
  const unsubscribe = () => {
    for (const signal of signals) callbacksBySignal.get(signal)?.delete(once);
  };
  for (const signal of signals) {
    if (signal.aborted) {
      once();
      return unsubscribe;
    }
  }
  for (const signal of signals) {
    let callbacks = callbacksBySignal.get(signal);
    if (!callbacks) {
      const created = new Set<() => void>();
      callbacks = created;
      callbacksBySignal.set(signal, created);
      signal.addEventListener(
        "abort",
        () => {
          for (const registered of [...created]) registered();
          created.clear();
        },
        { once: true },
      );
    }
    callbacks.add(once);
  }
  return unsubscribe;
}

/** The first of `signals` that has aborted, if any. */
export function firstAborted(signals: readonly AbortSignal[]): AbortSignal | undefined {
  for (const signal of signals) if (signal.aborted) return signal;
  return undefined;
}
