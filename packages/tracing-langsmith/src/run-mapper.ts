import type { ContextTraceEvent, ToolResultData } from "@agent-lattice/core";
import { type TraceRun, TraceTreeMapper, toolCallMetadata, traceTimeMs } from "@agent-lattice/core/internal";
import type { RunTree, RunTreeConfig } from "langsmith/run_trees";
import type { KVMap } from "langsmith/schemas";
import { llmInputs, llmOutputs, usageMetadata } from "./payloads.js";

/**
 * Maps AgentLattice trace events onto LangSmith run trees (core's TraceTreeMapper follows runs, requests and
 * calls; this says what each becomes): a run is a `chain` run (a root, or nested under the tool run that started
 * it or its parent run); a model turn an `llm` run (its request as inputs, the turn as outputs, usage in
 * `usage_metadata`), a failed request an `llm` run carrying the error; a tool call a `tool` run (`is_error`
 * marks it errored); `compaction` an `llm` run named "compaction" (its usage counts); other events become events
 * on their run.
 *
 * A run is posted when something nests under it (or its prompt arrives) and patched when it ends; llm and tool
 * runs without children are posted once complete. Posts and patches go to langsmith's batching client; the
 * promises are handed to `track`.
 */
export interface RunMapperOptions {
  /** Creates a root run (the RunTree constructor or the host's runTree factory). */
  createRoot(config: RunTreeConfig): RunTree;
  /** Receives every post/patch promise (flush() awaits them; failures are recorded there). */
  track(operation: () => Promise<unknown>, after?: Promise<void>): Promise<void>;
  projectName: string | undefined;
  tags: string[];
  metadata: KVMap;
  /** Called with each root run created, so its client (and replicas' clients) can be drained. */
  onRoot(run: RunTree): void;
}

/** A run and, once posted, its post. */
interface Posted {
  run: RunTree;
  posted?: Promise<void>;
}

type Run = TraceRun<Posted>;

/**
 * RunTree fills `serialized` with `{}` unless told otherwise, and langsmith's client sends every defined field
 * of a run as a multipart part of its own (each part some Blobs on the hot path). An empty `serialized` tells
 * LangSmith nothing, so runs leave it unset: one part fewer per run.
 */
const NO_SERIALIZED = { serialized: undefined } as unknown as Partial<RunTreeConfig>;

export class LangSmithRunMapper extends TraceTreeMapper<Posted> {
  constructor(private readonly options: RunMapperOptions) {
    super();
  }

  protected startRoot(event: ContextTraceEvent<"run_start">, metadata: KVMap): Posted {
    const run = this.options.createRoot({
      ...chainConfig(event, { ...this.options.metadata, ...metadata, session_id: event.session_id }),
      ...(this.options.projectName ? { project_name: this.options.projectName } : {}),
      tags: ["agent-lattice", ...this.options.tags],
    });
    this.options.onRoot(run);
    return { run };
  }

  protected startChild(parent: Posted, event: ContextTraceEvent<"run_start">, metadata: KVMap): Posted {
    return { run: parent.run.createChild(chainConfig(event, { ...this.options.metadata, ...metadata })) };
  }

  protected prompt(run: Run, event: ContextTraceEvent<"user_message">): boolean {
    if (run.node.posted) return false; // the run has started: a later prompt is an event on it
    run.node.run.inputs = { message: { role: "user", content: event.data.content } };
    this.#post(run.node);
    return true;
  }

  protected modelTurn(
    run: Run,
    { data, time }: ContextTraceEvent<"assistant_message">,
    request: ContextTraceEvent<"model_request"> | undefined,
    model: string,
  ): void {
    const llm = run.node.run.createChild({
      ...NO_SERIALIZED,
      name: model,
      run_type: "llm",
      start_time: traceTimeMs(data.started_at),
      inputs: request ? llmInputs(request.data) : {},
      metadata: {
        ...llmMetadata(run, data.turn, model, request),
        usage_metadata: usageMetadata(data.usage),
        stop_reason: data.stop_reason,
        ...(data.message.providerResponseId ? { provider_response_id: data.message.providerResponseId } : {}),
      },
    });
    this.#complete(llm, llmOutputs(data), undefined, traceTimeMs(time));
  }

  protected failedRequest(
    run: Run,
    request: ContextTraceEvent<"model_request">,
    error: string,
    time: string,
  ): void {
    const llm = run.node.run.createChild({
      ...NO_SERIALIZED,
      name: request.data.model,
      run_type: "llm",
      start_time: traceTimeMs(request.time),
      inputs: llmInputs(request.data),
      metadata: llmMetadata(run, request.data.turn, request.data.model, request),
    });
    this.#complete(llm, undefined, error, traceTimeMs(time));
  }

  protected openCall(run: Run, use: ContextTraceEvent<"tool_use">, time: string): Posted {
    const open = { run: run.node.run.createChild(toolConfig(use, traceTimeMs(time))) };
    this.#post(open);
    return open;
  }

  protected endCall(
    node: Posted,
    _use: ContextTraceEvent<"tool_use">,
    result: ToolResultData | undefined,
    error: string | undefined,
    time: string,
  ): void {
    if (!result) {
      this.#finish(node, undefined, error, traceTimeMs(time));
      return;
    }
    this.#finish(node, toolOutputs(result), error, traceTimeMs(time), toolExtra(result));
  }

  protected toolCall(
    run: Run,
    use: ContextTraceEvent<"tool_use">,
    result: ToolResultData,
    error: string | undefined,
  ): void {
    const config = toolConfig(use, traceTimeMs(result.started_at));
    const tool = run.node.run.createChild({
      ...config,
      metadata: { ...config.metadata, ...toolExtra(result) },
    });
    this.#complete(tool, toolOutputs(result), error, traceTimeMs(result.ended_at));
  }

  protected compaction(run: Run, event: ContextTraceEvent<"compaction">): void {
    this.#post(run.node);
    const usage = usageMetadata(event.data.usage);
    const llm = run.node.run.createChild({
      ...NO_SERIALIZED,
      name: "compaction",
      run_type: "llm",
      start_time: traceTimeMs(event.time),
      inputs: { trigger: event.data.trigger, compacted_messages: event.data.compacted_messages },
      metadata: {
        agent_lattice_run_id: run.runId,
        ls_provider: "anthropic",
        ls_model_type: "chat",
        usage_metadata: usage,
      },
    });
    this.#complete(
      llm,
      { summary: event.data.summary, usage_metadata: usage },
      undefined,
      traceTimeMs(event.time),
    );
  }

  protected traceEvent(run: Run, event: ContextTraceEvent): void {
    run.node.run.addEvent({
      name: event.type,
      time: event.time,
      kwargs: { seq: event.seq, data: event.data },
    });
  }

  protected endRun(run: Run, outputs: KVMap | undefined, error: string | undefined, time: string): void {
    this.#finish(run.node, outputs, error, traceTimeMs(time));
  }

  /** A parent is posted before its children. */
  protected override beforeChildren(node: Posted): void {
    this.#post(node);
  }

  #post(target: Posted): void {
    if (!target.posted) target.posted = this.options.track(() => target.run.postRun());
  }

  /** Ends a posted run and patches it (after its post). */
  #finish(
    target: Posted,
    outputs: KVMap | undefined,
    error: string | undefined,
    endTime: number,
    metadata?: KVMap,
  ): void {
    this.#post(target);
    const { run } = target;
    this.options.track(async () => {
      await run.end(outputs, error, endTime, metadata);
      await run.patchRun({ excludeInputs: false });
    }, target.posted);
  }

  /** Ends a run that was never posted and posts it whole (one operation). */
  #complete(run: RunTree, outputs: KVMap | undefined, error: string | undefined, endTime: number): void {
    this.options.track(async () => {
      await run.end(outputs, error, endTime);
      await run.postRun();
    });
  }
}

function chainConfig(event: ContextTraceEvent<"run_start">, metadata: KVMap): RunTreeConfig {
  return {
    ...NO_SERIALIZED,
    name: event.source,
    run_type: "chain",
    start_time: traceTimeMs(event.time),
    inputs: {},
    metadata,
  };
}

function toolConfig(use: ContextTraceEvent<"tool_use">, startTime: number): RunTreeConfig {
  return {
    ...NO_SERIALIZED,
    name: use.data.name,
    run_type: "tool",
    start_time: startTime,
    inputs: { input: use.data.input },
    metadata: toolCallMetadata(use),
  };
}

function toolOutputs(result: ToolResultData): KVMap {
  return { content: result.content, is_error: result.is_error };
}

function toolExtra(result: ToolResultData): KVMap {
  return { tool_kind: result.kind, duration_ms: result.duration_ms };
}

function llmMetadata(
  run: Run,
  turn: number,
  model: string,
  request: ContextTraceEvent<"model_request"> | undefined,
): KVMap {
  return {
    agent_lattice_run_id: run.runId,
    agent_lattice_turn: turn,
    ls_provider: "anthropic",
    ls_model_type: "chat",
    ls_model_name: model,
    ...(request ? { ls_max_tokens: request.data.max_tokens } : {}),
  };
}
