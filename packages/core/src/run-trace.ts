import { type ContextTraceEvent, type ContextTraceEventType, type ContextTracer, deliver } from "./tracer.js";

/**
 * The trace of one run (one query): stamps run_id, seq, source and time on each event and hands it to the
 * agent's and the query's tracers. With no tracer, `enabled` is false and callers skip building event data.
 */
export class RunTrace {
  readonly runId = globalThis.crypto.randomUUID();
  readonly enabled: boolean;
  #seq = 0;

  constructor(
    private readonly tracers: readonly ContextTracer[],
    private readonly sessionId: string,
    private readonly source: string,
    private readonly parentRunId?: string,
  ) {
    this.enabled = tracers.length > 0;
  }

  async emit(type: ContextTraceEventType, data: Record<string, unknown>): Promise<void> {
    if (!this.enabled) return;
    const event: ContextTraceEvent = {
      session_id: this.sessionId,
      run_id: this.runId,
      seq: this.#seq++,
      source: this.source,
      type,
      time: new Date().toISOString(),
      ...(this.parentRunId ? { parent_run_id: this.parentRunId } : {}),
      data,
    };
    for (const tracer of this.tracers) await deliver(tracer, event);
  }
}

/** A serialisable summary of an error for trace events. */
export function errorData(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    return {
      name: error.name,
      message: error.message,
      ...("code" in error ? { code: (error as { code: unknown }).code } : {}),
    };
  }
  return { message: String(error) };
}
