import type { ContextTraceEvent } from "@agent-lattice/core";
import type { startObservation as StartObservation } from "@langfuse/tracing";
import { HistoryJson } from "./history-json.js";
import {
  contentText,
  date,
  errorText,
  generationInput,
  generationOutput,
  modelParameters,
  resultError,
  resultOutput,
  usageDetails,
} from "./payloads.js";

/**
 * Maps AgentLattice trace events onto Langfuse observations, one event at a time, never waiting on the network
 * (ended spans go to the host's span processor, which exports them in the background):
 *
 * - `run_start` opens a `chain` observation: the root of a new trace (carrying the trace name, session id and
 *   tags) when the run has no known parent, else a child of the tool observation of the call that started it
 *   (delegation, a member asked by the lead) or of the parent run (a team's lead, handed-off members).
 * - `model_request` … `assistant_message` is one `generation` (model, input, output, usageDetails); a request
 *   that failed (`error` with its turn) is a generation at level ERROR.
 * - `tool_use` … `tool_result` is one `tool` observation with the call's own start and end; `is_error` makes it
 *   level ERROR.
 * - `compaction` is a generation named "compaction"; `result` (or a fatal `error`) ends the chain; every other
 *   event type (team events, newer ones) becomes an `event` observation under its run.
 */
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

interface Call {
  use: ContextTraceEvent<"tool_use">;
  /** The tool observation, once opened for a child that nests under it (else created whole at its result). */
  open?: ObservationLike;
}

interface RunState {
  runId: string;
  observation: ObservationLike;
  traceSession: string;
  requests: Map<number, ContextTraceEvent<"model_request">>;
  calls: Map<string, Call>;
}

type AsType = "chain" | "generation" | "tool" | "event";

export class LangfuseObservationMapper {
  readonly #runs = new Map<string, RunState>();
  readonly #historyJson = new HistoryJson();

  constructor(private readonly options: ObservationMapperOptions) {}

  #input(request: ContextTraceEvent<"model_request">): unknown {
    return this.options.serializedInputs
      ? this.#historyJson.input(request.data)
      : generationInput(request.data);
  }

  handle(event: ContextTraceEvent): void {
    if (event.type === "run_start") {
      this.#start(event);
      return;
    }
    const run = this.#runs.get(event.run_id);
    if (!run) return; // a run whose start this tracer never saw (it was attached mid-run)
    switch (event.type) {
      case "user_message":
        if (event.data.origin === "prompt") {
          run.observation.update?.({ input: { message: { role: "user", content: event.data.content } } });
        } else {
          this.#event(run, event);
        }
        break;
      case "model_request":
        this.#failRequest(run, event.data.turn, "superseded: the request was retried", event.time);
        run.requests.set(event.data.turn, event);
        break;
      case "assistant_message":
        this.#generation(run, event);
        break;
      case "tool_use":
        run.calls.set(event.data.id, { use: event });
        break;
      case "tool_result":
        this.#toolResult(run, event);
        break;
      case "compaction":
        this.#compaction(run, event);
        break;
      case "error":
        if (event.data.fatal) this.#end(run, undefined, errorText(event.data.error), event.time);
        else if (event.data.turn !== undefined && run.requests.has(event.data.turn)) {
          this.#failRequest(run, event.data.turn, errorText(event.data.error), event.time);
        } else this.#event(run, event);
        break;
      case "result":
        this.#end(run, resultOutput(event.data), resultError(event.data), event.time);
        break;
      default:
        this.#event(run, event);
    }
  }

  /** Ends every open run (close(): their spans must still reach the processor). */
  endAll(reason: string): void {
    const now = new Date().toISOString();
    for (const run of [...this.#runs.values()].reverse()) this.#end(run, undefined, reason, now);
  }

  #start(event: ContextTraceEvent<"run_start">): void {
    const metadata = {
      ...this.options.metadata,
      agent_lattice_run_id: event.run_id,
      agent_session_id: event.session_id,
      agent_lattice_source: event.source,
      model: event.data.model,
      tools: event.data.tools,
      ...(event.parent_run_id ? { agent_lattice_parent_run_id: event.parent_run_id } : {}),
      ...(event.parent_tool_use_id ? { agent_lattice_parent_tool_use_id: event.parent_tool_use_id } : {}),
    };
    const parent = this.#parentOf(event);
    let observation: ObservationLike;
    if (parent) {
      observation = this.#child(parent.observation, event.source, { metadata }, "chain", date(event.time));
    } else {
      observation = this.options.detached(() =>
        this.options.startObservation(
          event.source,
          { metadata: { ...metadata, session_id: event.session_id } },
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
    }
    this.#runs.set(event.run_id, {
      runId: event.run_id,
      observation,
      traceSession: parent?.traceSession ?? event.session_id,
      requests: new Map(),
      calls: new Map(),
    });
  }

  #parentOf(event: ContextTraceEvent): { observation: ObservationLike; traceSession: string } | undefined {
    const parent = event.parent_run_id ? this.#runs.get(event.parent_run_id) : undefined;
    if (!parent) return undefined;
    const call = event.parent_tool_use_id ? parent.calls.get(event.parent_tool_use_id) : undefined;
    if (!call) return { observation: parent.observation, traceSession: parent.traceSession };
    // The call has started (its child is starting now): open its tool observation so the child can nest.
    call.open ??= this.#child(
      parent.observation,
      call.use.data.name,
      { input: { input: call.use.data.input }, metadata: toolMetadata(call.use) },
      "tool",
      date(event.time),
    );
    return { observation: call.open, traceSession: parent.traceSession };
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

  #generation(run: RunState, event: ContextTraceEvent<"assistant_message">): void {
    const request = run.requests.get(event.data.turn);
    run.requests.delete(event.data.turn);
    const { data } = event;
    const model = data.message.model ?? request?.data.model ?? "model";
    const generation = this.#child(
      run.observation,
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
    generation.end(date(event.time));
  }

  #failRequest(run: RunState, turn: number, error: string, time: string): void {
    const request = run.requests.get(turn);
    if (!request) return;
    run.requests.delete(turn);
    const generation = this.#child(
      run.observation,
      request.data.model,
      {
        model: request.data.model,
        input: this.#input(request),
        modelParameters: modelParameters(request.data),
        level: "ERROR",
        statusMessage: error,
        metadata: { agent_lattice_run_id: run.runId, agent_lattice_turn: turn },
      },
      "generation",
      date(request.time),
    );
    generation.end(date(time));
  }

  #toolResult(run: RunState, event: ContextTraceEvent<"tool_result">): void {
    const { data } = event;
    const call = run.calls.get(data.tool_use_id);
    run.calls.delete(data.tool_use_id);
    const use: ContextTraceEvent<"tool_use"> = call?.use ?? {
      ...event,
      type: "tool_use",
      data: { id: data.tool_use_id, name: data.name, input: undefined, turn: data.turn },
    };
    const ending = {
      output: { content: data.content, is_error: data.is_error },
      metadata: { ...toolMetadata(use), tool_kind: data.kind, duration_ms: data.duration_ms },
      ...(data.is_error ? { level: "ERROR", statusMessage: contentText(data.content) || "tool error" } : {}),
    };
    if (call?.open) {
      call.open.update?.(ending);
      call.open.end(date(data.ended_at));
      return;
    }
    const tool = this.#child(
      run.observation,
      use.data.name,
      { input: { input: use.data.input }, ...ending },
      "tool",
      date(data.started_at),
    );
    tool.end(date(data.ended_at));
  }

  #compaction(run: RunState, event: ContextTraceEvent<"compaction">): void {
    if (event.data.trigger === "recovery") {
      for (const turn of [...run.requests.keys()]) {
        this.#failRequest(
          run,
          turn,
          "the context window was exceeded; history compacted and retried",
          event.time,
        );
      }
    }
    const generation = this.#child(
      run.observation,
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

  #event(run: RunState, event: ContextTraceEvent): void {
    // Event observations end themselves.
    this.#child(
      run.observation,
      event.type,
      { input: event.data, metadata: { agent_lattice_run_id: run.runId, seq: event.seq } },
      "event",
      date(event.time),
    );
  }

  #end(
    run: RunState,
    output: Record<string, unknown> | undefined,
    error: string | undefined,
    time: string,
  ): void {
    this.#runs.delete(run.runId);
    const leftover = error ?? "the run ended before this completed";
    for (const turn of [...run.requests.keys()]) this.#failRequest(run, turn, leftover, time);
    for (const call of run.calls.values()) {
      if (!call.open) continue;
      call.open.update?.({
        level: "ERROR",
        statusMessage: `the run ended before the call returned: ${leftover}`,
      });
      call.open.end(date(time));
    }
    run.calls.clear();
    run.observation.update?.({
      ...(output ? { output } : {}),
      ...(error ? { level: "ERROR", statusMessage: error } : {}),
    });
    run.observation.end(date(time));
  }
}

function toolMetadata(use: ContextTraceEvent<"tool_use">): Record<string, unknown> {
  return {
    agent_lattice_run_id: use.run_id,
    agent_lattice_turn: use.data.turn,
    tool_use_id: use.data.id,
    tool_name: use.data.name,
  };
}
