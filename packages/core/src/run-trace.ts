import { bindFailurePolicy, failurePolicyOf } from "./failure-policy.js";
import {
  type ContextTraceEvent,
  type ContextTraceEventDataMap,
  type ContextTraceEventType,
  TRACE_EVENT_VERSION,
  type TraceErrorData,
} from "./trace-events.js";
import { type ContextTracer, deliver, releaseTracer, withRelease } from "./tracer.js";

/** Rewrites an event before any tracer sees it (redaction); returns a replacement or undefined to keep it. */
export type TraceEventHook = (
  event: ContextTraceEvent,
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing leaves the event unchanged
) => ContextTraceEvent | undefined | void | Promise<ContextTraceEvent | undefined | void>;

export interface RunTraceOptions {
  sessionId: string;
  /** The agent's name (or "agent"), or the team's name. */
  source: string;
  parentRunId?: string | undefined;
  parentToolUseId?: string | undefined;
  /** The agent's onTraceEvent hook: applied before every tracer, so redaction reaches every event. */
  hook?: TraceEventHook | undefined;
}

/**
 * The trace of one run (one query): stamps v, run_id, seq, source and time on each event, applies the redaction
 * hook, and hands it to the agent's and the query's tracers. With no tracer, `enabled` is false and callers skip
 * building event data.
 */
export class RunTrace {
  readonly runId = globalThis.crypto.randomUUID();
  readonly enabled: boolean;
  #seq = 0;

  constructor(
    private readonly tracers: readonly ContextTracer[],
    private readonly options: RunTraceOptions,
  ) {
    this.enabled = tracers.length > 0;
  }

  /**
   * Emits one event; `at` (epoch ms) stamps a time measured by the caller instead of now. The returned promise is
   * already settled when every tracer's onEvent returned synchronously (the common case: hosted tracers queue the
   * event and return), so an emit costs the agent's step no chain of promises; an onEvent that returns a promise
   * (the JSONL tracer's write under failOnError, a composite) is awaited before the next tracer sees it, as before.
   */
  emit<T extends ContextTraceEventType>(
    type: T,
    data: ContextTraceEventDataMap[T],
    at?: number,
  ): Promise<void> {
    if (!this.enabled) return SETTLED;
    const { sessionId, source, parentRunId, parentToolUseId, hook } = this.options;
    const event = {
      v: TRACE_EVENT_VERSION,
      session_id: sessionId,
      run_id: this.runId,
      seq: this.#seq++,
      source,
      type,
      time: new Date(at ?? Date.now()).toISOString(),
      ...(parentRunId ? { parent_run_id: parentRunId } : {}),
      ...(parentToolUseId ? { parent_tool_use_id: parentToolUseId } : {}),
      data,
    } as ContextTraceEvent;
    // A throwing hook propagates (like every hook): a redaction that failed quietly would leak.
    if (hook) return this.#hooked(event, hook);
    return this.#deliverFrom(event, 0);
  }

  async #hooked(event: ContextTraceEvent, hook: TraceEventHook): Promise<void> {
    await this.#deliverFrom((await hook(event)) ?? event, 0);
  }

  /** Hands the event to the tracers from index `from` on, in order, each under its own failure policy. */
  #deliverFrom(event: ContextTraceEvent, from: number): Promise<void> {
    for (let index = from; index < this.tracers.length; index++) {
      const tracer = this.tracers[index]!;
      let returned: void | Promise<void>;
      try {
        returned = tracer.onEvent(event);
      } catch (error) {
        if (failurePolicyOf(tracer) === true) return Promise.reject(error);
        continue; // swallowed by design: observability must not take the agent down
      }
      if (isThenable(returned)) return this.#afterPending(returned, tracer, event, index + 1);
    }
    return SETTLED;
  }

  async #afterPending(
    pending: PromiseLike<void>,
    tracer: ContextTracer,
    event: ContextTraceEvent,
    next: number,
  ): Promise<void> {
    try {
      await pending;
    } catch (error) {
      if (failurePolicyOf(tracer) === true) throw error;
    }
    await this.#deliverFrom(event, next);
  }
}

/** What emit() returns when nothing is pending (shared: awaiting a settled promise allocates nothing). */
const SETTLED: Promise<void> = Promise.resolve();

function isThenable(value: unknown): value is PromiseLike<void> {
  return (
    typeof value === "object" && value !== null && typeof (value as PromiseLike<void>).then === "function"
  );
}

/**
 * The query tracer as a delegated child sees it: every event the child emits passes the parent's redaction hook
 * first, so what a parent redacts stays redacted in its children's events too. Never fails itself: the inner
 * tracer's own policy decides.
 */
export function redactingTracer(tracer: ContextTracer, hook: TraceEventHook): ContextTracer {
  const wrapped: ContextTracer = {
    async onEvent(event) {
      await deliver(tracer, (await hook(event)) ?? event);
    },
    flush: () => tracer.flush?.() ?? Promise.resolve(),
    close: () => tracer.close?.() ?? Promise.resolve(),
  };
  return bindFailurePolicy(
    withRelease(wrapped, () => releaseTracer(tracer)),
    true,
  );
}

/** A serialisable summary of an error for trace events. */
export function errorData(error: unknown): TraceErrorData {
  if (error instanceof Error) {
    const details = error as Error & { code?: unknown; status?: unknown };
    return {
      name: error.name,
      message: error.message,
      ...(typeof details.code === "string" ? { code: details.code } : {}),
      ...(typeof details.status === "number" ? { status: details.status } : {}),
    };
  }
  return { name: "Error", message: safeString(error) };
}

/** String(value) that never throws (a Proxy or an object whose toString throws). */
export function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
