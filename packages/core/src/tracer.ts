import { BRANDS, brand, brandOf } from "./brand.js";
import { InvalidOptionError } from "./errors.js";
import { bindFailurePolicy, failurePolicyOf } from "./failure-policy.js";
import { assertKnownOptions } from "./option-validation.js";
import type { ContextTraceEvent } from "./trace-events.js";

/** The ContextTracer port: observes runs without changing the loop. Methods only. */
export interface ContextTracer {
  onEvent(event: ContextTraceEvent): void | Promise<void>;
  /** Waits until every event handed over so far is stored or sent. */
  flush?(): Promise<void>;
  /** Flushes and releases resources; the tracer is unusable afterwards. */
  close?(): Promise<void>;
}

export interface ContextTracerMethods {
  onEvent(event: ContextTraceEvent): void | Promise<void>;
  flush?(): void | Promise<void>;
  close?(): void | Promise<void>;
}

export interface FailurePolicyOptions {
  /** true: a failing sink makes query() throw. Default false: failures are swallowed and the run goes on. */
  failOnError?: boolean;
}

/**
 * Creates a ContextTracer from your methods, with `failOnError` bound now (the returned object exposes methods
 * only). Every custom tracer goes through this factory.
 */
export function defineContextTracer(
  methods: ContextTracerMethods,
  options: FailurePolicyOptions = {},
): ContextTracer {
  if (!methods || typeof methods.onEvent !== "function") {
    throw new InvalidOptionError(
      "defineContextTracer(): pass an object with an onEvent(event) method (flush and close are optional).",
    );
  }
  assertKnownOptions(methods, new Set(["onEvent", "flush", "close"]), "defineContextTracer()");
  assertKnownOptions(options, new Set(["failOnError"]), "defineContextTracer() options");
  for (const key of ["flush", "close"] as const) {
    if (methods[key] !== undefined && typeof methods[key] !== "function") {
      throw new InvalidOptionError(`defineContextTracer(): ${key} must be a function.`);
    }
  }
  const failOnError = options.failOnError === true;
  // flush()/close() follow the same policy as onEvent: a host's `finally { await tracer.close() }` must not
  // turn a swallowed sink failure into a crash.
  const settle = async (action: (() => void | Promise<void>) | undefined) => {
    try {
      await action?.();
    } catch (error) {
      if (failOnError) throw error;
    }
  };
  const tracer: ContextTracer = {
    onEvent: event => methods.onEvent(event),
    flush: () => settle(methods.flush?.bind(methods)),
    close: () => settle(methods.close?.bind(methods)),
  };
  return bindFailurePolicy(tracer, failOnError);
}

/** Throws when a tracer was not made by one of the SDK's factories (its failure policy would be unknown). */
export function assertContextTracer(tracer: ContextTracer | undefined, where: string): void {
  if (tracer === undefined) return;
  if (!tracer || typeof tracer.onEvent !== "function" || failurePolicyOf(tracer) === undefined) {
    throw new InvalidOptionError(
      `${where}: tracers must be created with defineContextTracer(), createJsonlContextTracer(), ` +
        "createCompositeContextTracer() or an adapter's factory.",
    );
  }
}

/** Fans every event out to several tracers, in order. Each keeps its own failure policy. */
export function createCompositeContextTracer(tracers: ContextTracer[]): ContextTracer {
  if (!Array.isArray(tracers)) {
    throw new InvalidOptionError("createCompositeContextTracer(): pass an array of tracers.");
  }
  for (const [index, tracer] of tracers.entries()) {
    assertContextTracer(tracer, `createCompositeContextTracer()[${index}]`);
  }
  const composite: ContextTracer = {
    async onEvent(event) {
      for (const tracer of tracers) await deliver(tracer, event);
    },
    async flush() {
      for (const tracer of tracers) await guarded(tracer, () => tracer.flush?.());
    },
    async close() {
      for (const tracer of tracers) await guarded(tracer, () => tracer.close?.());
    },
  };
  withRelease(composite, async () => {
    for (const tracer of tracers) await releaseTracer(tracer);
  });
  // The composite itself never fails: each member's own policy decides.
  return bindFailurePolicy(composite, true);
}

/**
 * What Agent.close() does to the agent's tracer: flush it and release its handles (a JSONL tracer closes its
 * descriptor and reopens on the next event), without closing it — a tracer may be shared by several agents and
 * stays the host's to close(). Follows the tracer's failure policy.
 */
export async function releaseTracer(tracer: ContextTracer): Promise<void> {
  const release = brandOf(tracer, BRANDS.release);
  await guarded(tracer, () =>
    typeof release === "function" ? (release as () => void | Promise<void>)() : tracer.flush?.(),
  );
}

/** Marks `release` as the tracer's handle release for releaseTracer(). */
export function withRelease<T extends ContextTracer>(tracer: T, release: () => void | Promise<void>): T {
  return brand(tracer, BRANDS.release, release);
}

/** Delivers one event, applying the tracer's failure policy. */
export async function deliver(tracer: ContextTracer, event: ContextTraceEvent): Promise<void> {
  await guarded(tracer, () => tracer.onEvent(event));
}

async function guarded(tracer: ContextTracer, action: () => void | Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (failurePolicyOf(tracer) === true) throw error;
    // Swallowed by design: observability must not take the agent down.
  }
}
