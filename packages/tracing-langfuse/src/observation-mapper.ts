import type { ContextTraceEvent, ToolResultData } from "@agent-lattice/core";
import { type TraceRun, TraceTreeMapper, toolCallMetadata, traceTimeMs } from "@agent-lattice/core/internal";
import type { startObservation as StartObservation } from "@langfuse/tracing";
import { HistoryJson } from "./history-json.js";
import { generationInput, generationOutput, modelParameters, usageDetails } from "./payloads.js";

/** @langfuse/tracing's startObservation, or one of the same shape (a custom runtime or a test fake). */
export type StartObservationFn = typeof StartObservation;

/** The parts of a Langfuse observation the mapper uses (a custom runtime or a fake needs only these). */
export interface ObservationLike {
  update?(attributes: Record<string, unknown>): unknown;
  end(endTime?: Date): void;
  startObservation?(
    name: string,
    attributes?: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): unknown;
  otelSpan?: {
    setAttribute?(key: string, value: unknown): unknown;
    spanContext?(): unknown;
  };
}

export interface ObservationMapperOptions {
  startObservation: StartObservationFn;
  /**
   * Options that make a root observation start a new trace whatever span is active: with @langfuse/tracing's
   * startObservation, an invalid parent span context (OpenTelemetry's SDK then starts a new trace, without
   * entering a context: see langfuse-tracer.ts).
   */
  rootOptions: Record<string, unknown>;
  /** Runs `fn` outside any active OpenTelemetry span (for an injected startObservation that takes no parent). */
  detached<T>(fn: () => T): T;
  tags: string[];
  metadata: Record<string, unknown>;
  /**
   * true: generation inputs are handed over as their JSON text, assembled from each message's JSON made once
   * (history-json.ts), rather than as objects @langfuse/tracing serialises whole on every turn. For
   * @langfuse/tracing's startObservation (it passes strings through); an injected one gets objects.
   */
  serializedInputs?: boolean;
}

/** Span attribute names Langfuse reads for trace-level fields (LangfuseOtelSpanAttributes). */
const TRACE_NAME = "langfuse.trace.name";
const TRACE_SESSION_ID = "session.id";
const TRACE_TAGS = "langfuse.trace.tags";
const TRACE_METADATA = "langfuse.trace.metadata";

type Run = TraceRun<ObservationLike>;

type AsType = "chain" | "generation" | "tool" | "event";

/**
 * Maps AgentLattice trace events onto Langfuse observations (core's TraceTreeMapper follows runs, requests and
 * calls; this says what each becomes), never waiting on the network (ended spans go to the host's span
 * processor, which exports them in the background): a run is a `chain` observation (the root of a new trace,
 * carrying the trace name, session id and tags, or nested under the tool observation that started it or its
 * parent run); a model turn a `generation` (model, input, output, usageDetails), a failed request a generation
 * at level ERROR; a tool call a `tool` observation (`is_error` makes it level ERROR); `compaction` a generation
 * named "compaction"; other events (team events, newer types) `event` observations under their run.
 */
export class LangfuseObservationMapper extends TraceTreeMapper<ObservationLike> {
  readonly #historyJson = new HistoryJson();

  constructor(private readonly options: ObservationMapperOptions) {
    super();
  }

  #input(request: ContextTraceEvent<"model_request">): unknown {
    return this.options.serializedInputs
      ? this.#historyJson.input(request.data)
      : generationInput(request.data);
  }

  protected startRoot(
    event: ContextTraceEvent<"run_start">,
    metadata: Record<string, unknown>,
  ): ObservationLike {
    const observation = this.options.detached(() =>
      this.options.startObservation(
        event.source,
        { metadata: { ...this.options.metadata, ...metadata, session_id: event.session_id } },
        { asType: "chain", startTime: date(event.time), ...this.options.rootOptions },
      ),
    ) as ObservationLike;
    // Trace-level fields live on the trace's root observation.
    const span = observation.otelSpan;
    span?.setAttribute?.(TRACE_NAME, event.source);
    span?.setAttribute?.(TRACE_SESSION_ID, event.session_id);
    span?.setAttribute?.(TRACE_TAGS, ["agent-lattice", ...this.options.tags]);
    for (const [key, value] of Object.entries(this.options.metadata)) {
      span?.setAttribute?.(
        `${TRACE_METADATA}.${key}`,
        typeof value === "string" ? value : JSON.stringify(value),
      );
    }
    return observation;
  }

  protected startChild(
    parent: ObservationLike,
    event: ContextTraceEvent<"run_start">,
    metadata: Record<string, unknown>,
  ): ObservationLike {
    return this.#child(
      parent,
      event.source,
      { metadata: { ...this.options.metadata, ...metadata } },
      "chain",
      date(event.time),
    );
  }

  protected prompt(run: Run, event: ContextTraceEvent<"user_message">): boolean {
    run.node.update?.({ input: { message: { role: "user", content: event.data.content } } });
    return true;
  }

  protected modelTurn(
    run: Run,
    { data, time }: ContextTraceEvent<"assistant_message">,
    request: ContextTraceEvent<"model_request"> | undefined,
    model: string,
  ): void {
    const generation = this.#child(
      run.node,
      model,
      {
        model,
        ...(request ? { input: this.#input(request), modelParameters: modelParameters(request.data) } : {}),
        output: generationOutput(data),
        usageDetails: usageDetails(data.usage),
        metadata: {
          agent_lattice_run_id: run.runId,
          agent_lattice_turn: data.turn,
          stop_reason: data.stop_reason,
          ...(data.message.providerResponseId
            ? { provider_response_id: data.message.providerResponseId }
            : {}),
        },
      },
      "generation",
      date(data.started_at),
    );
    generation.end(date(time));
  }

  protected failedRequest(
    run: Run,
    request: ContextTraceEvent<"model_request">,
    error: string,
    time: string,
  ): void {
    const generation = this.#child(
      run.node,
      request.data.model,
      {
        model: request.data.model,
        input: this.#input(request),
        modelParameters: modelParameters(request.data),
        level: "ERROR",
        statusMessage: error,
        metadata: { agent_lattice_run_id: run.runId, agent_lattice_turn: request.data.turn },
      },
      "generation",
      date(request.time),
    );
    generation.end(date(time));
  }

  protected openCall(run: Run, use: ContextTraceEvent<"tool_use">, time: string): ObservationLike {
    return this.#child(
      run.node,
      use.data.name,
      { input: { input: use.data.input }, metadata: toolCallMetadata(use) },
      "tool",
      date(time),
    );
  }

  protected endCall(
    node: ObservationLike,
    use: ContextTraceEvent<"tool_use">,
    result: ToolResultData | undefined,
    error: string | undefined,
    time: string,
  ): void {
    node.update?.(result ? toolEnding(use, result, error) : { level: "ERROR", statusMessage: error });
    node.end(date(time));
  }

  protected toolCall(
    run: Run,
    use: ContextTraceEvent<"tool_use">,
    result: ToolResultData,
    error: string | undefined,
  ): void {
    const tool = this.#child(
      run.node,
      use.data.name,
      { input: { input: use.data.input }, ...toolEnding(use, result, error) },
      "tool",
      date(result.started_at),
    );
    tool.end(date(result.ended_at));
  }

  protected compaction(run: Run, event: ContextTraceEvent<"compaction">): void {
    const generation = this.#child(
      run.node,
      "compaction",
      {
        input: { trigger: event.data.trigger, compacted_messages: event.data.compacted_messages },
        output: { summary: event.data.summary },
        usageDetails: usageDetails(event.data.usage),
        metadata: { agent_lattice_run_id: run.runId },
      },
      "generation",
      date(event.time),
    );
    generation.end(date(event.time));
  }

  protected traceEvent(run: Run, event: ContextTraceEvent): void {
    // Event observations end themselves.
    this.#child(
      run.node,
      event.type,
      { input: event.data, metadata: { agent_lattice_run_id: run.runId, seq: event.seq } },
      "event",
      date(event.time),
    );
  }

  protected endRun(
    run: Run,
    output: Record<string, unknown> | undefined,
    error: string | undefined,
    time: string,
  ): void {
    run.node.update?.({
      ...(output ? { output } : {}),
      ...(error ? { level: "ERROR", statusMessage: error } : {}),
    });
    run.node.end(date(time));
  }

  /**
   * A child observation with an explicit start: through startObservation with the parent's span context (the
   * observation's own startObservation method does not pass a start time on); a parent without an OpenTelemetry
   * span (a custom runtime) makes its own child.
   */
  #child(
    parent: ObservationLike,
    name: string,
    attributes: Record<string, unknown>,
    asType: AsType,
    startTime: Date,
  ): ObservationLike {
    const spanContext = parent.otelSpan?.spanContext?.();
    if (spanContext || !parent.startObservation) {
      const start = this.options.startObservation as unknown as (
        name: string,
        attributes: Record<string, unknown>,
        options: Record<string, unknown>,
      ) => ObservationLike;
      return start(name, attributes, {
        asType,
        startTime,
        ...(spanContext ? { parentSpanContext: spanContext } : {}),
      });
    }
    return parent.startObservation(name, attributes, { asType, startTime }) as ObservationLike;
  }
}

/** A tool observation's closing attributes: its result, metadata, and level ERROR when the call failed. */
function toolEnding(
  use: ContextTraceEvent<"tool_use">,
  result: ToolResultData,
  error: string | undefined,
): Record<string, unknown> {
  return {
    output: { content: result.content, is_error: result.is_error },
    metadata: { ...toolCallMetadata(use), tool_kind: result.kind, duration_ms: result.duration_ms },
    ...(error === undefined ? {} : { level: "ERROR", statusMessage: error }),
  };
}

function date(iso: string): Date {
  return new Date(traceTimeMs(iso));
}
