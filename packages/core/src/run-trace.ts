import { bindFailurePolicy } from "./failure-policy.js";
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

  /** Emits one event; `at` (epoch ms) stamps a time measured by the caller instead of now. */
  async emit<T extends ContextTraceEventType>(
    type: T,
    data: ContextTraceEventDataMap[T],
    at?: number,
  ): Promise<void> {
    if (!this.enabled) return;
    const { sessionId, source, parentRunId, parentToolUseId, hook } = this.options;
    let event = {
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
    if (hook) event = (await hook(event)) ?? event;
    for (const tracer of this.tracers) await deliver(tracer, event);
  }
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
