import type { ContextTraceEvent } from "@agent-lattice/core";
import type { RunTree, RunTreeConfig } from "langsmith/run_trees";
import type { KVMap } from "langsmith/schemas";
import {
  contentText,
  errorText,
  llmInputs,
  llmOutputs,
  ms,
  resultError,
  resultOutputs,
  usageMetadata,
} from "./payloads.js";

/**
 * Maps AgentLattice trace events onto LangSmith run trees, one event at a time, never waiting on the network:
 *
 * - `run_start` opens a `chain` run: a root (one trace) when the run has no known parent, else a child of the
 *   tool run that started it (`parent_tool_use_id`, a delegation or a team member asked by the lead) or of the
 *   parent run itself (a team's lead and handed-off members nest under the team's run).
 * - `model_request` … `assistant_message` is one `llm` run (its request as inputs, the turn as outputs, usage in
 *   `usage_metadata`); a request that failed (`error` with its turn) is an `llm` run carrying the error.
 * - `tool_use` … `tool_result` is one `tool` run with the call's own start and end; `is_error` marks it errored.
 * - `compaction` is an `llm` run named "compaction" (its usage counts); `result` (or a fatal `error`) ends the
 *   chain run; every other event type (team events, newer ones) becomes an event on its run.
 *
 * A run is posted when it starts and patched when it ends, except llm and tool runs without children, which are
 * posted once complete. Posts and patches go to langsmith's batching client; the promises are handed to `track`.
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

interface Posted {
  run: RunTree;
  posted?: Promise<void>;
}

interface Call {
  use: ContextTraceEvent<"tool_use">;
  /** The tool run, once opened for a child that nests under it (otherwise it is created whole at its result). */
  open?: Posted;
}

interface RunState extends Posted {
  runId: string;
  /** The session id of the trace's root run (its agent's or team's session): one LangSmith thread. */
  traceSession: string;
  requests: Map<number, ContextTraceEvent<"model_request">>;
  calls: Map<string, Call>;
}

export class LangSmithRunMapper {
  readonly #runs = new Map<string, RunState>();

  constructor(private readonly options: RunMapperOptions) {}

  /** Runs started and not yet ended. */
  get openRuns(): number {
    return this.#runs.size;
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
        if (event.data.origin === "prompt" && !run.posted) {
          run.run.inputs = { message: { role: "user", content: event.data.content } };
          this.#post(run);
        } else {
          this.#event(run, event);
        }
        break;
      case "model_request":
        this.#post(run);
        this.#failRequest(run, event.data.turn, "superseded: the request was retried", event.time);
        run.requests.set(event.data.turn, event);
        break;
      case "assistant_message":
        this.#llm(run, event);
        break;
      case "tool_use":
        this.#post(run);
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
        this.#end(run, resultOutputs(event.data), resultError(event.data), event.time);
        break;
      default:
        this.#event(run, event);
    }
  }

  /** Ends every open run (close(): the process is going away; their patches must still be sent). */
  endAll(reason: string): void {
    const now = new Date().toISOString();
    for (const run of [...this.#runs.values()].reverse()) this.#end(run, undefined, reason, now);
  }

  #start(event: ContextTraceEvent<"run_start">): void {
    const metadata: KVMap = {
      ...this.options.metadata,
      agent_lattice_run_id: event.run_id,
      agent_session_id: event.session_id,
      agent_lattice_source: event.source,
      model: event.data.model,
      tools: event.data.tools,
      ...(event.parent_run_id ? { agent_lattice_parent_run_id: event.parent_run_id } : {}),
      ...(event.parent_tool_use_id ? { agent_lattice_parent_tool_use_id: event.parent_tool_use_id } : {}),
    };
    const config: RunTreeConfig = {
      name: event.source,
      run_type: "chain",
      start_time: ms(event.time),
      inputs: {},
      metadata,
    };
    const parent = this.#parentOf(event);
    let run: RunTree;
    if (parent) {
      run = parent.node.createChild(config);
    } else {
      run = this.options.createRoot({
        ...config,
        ...(this.options.projectName ? { project_name: this.options.projectName } : {}),
        tags: ["agent-lattice", ...this.options.tags],
        metadata: { ...metadata, session_id: event.session_id },
      });
      this.options.onRoot(run);
    }
    this.#runs.set(event.run_id, {
      run,
      runId: event.run_id,
      traceSession: parent?.traceSession ?? event.session_id,
      requests: new Map(),
      calls: new Map(),
    });
  }

  /**
   * Where a run hangs: under the tool run of the call that started it when that call belongs to the parent run
   * (delegation, a member asked by the lead), else under the parent run (a team's lead, handed-off members).
   */
  #parentOf(event: ContextTraceEvent): { node: RunTree; traceSession: string } | undefined {
    const parent = event.parent_run_id ? this.#runs.get(event.parent_run_id) : undefined;
    if (!parent) return undefined;
    this.#post(parent); // a parent is posted before its children
    const call = event.parent_tool_use_id ? parent.calls.get(event.parent_tool_use_id) : undefined;
    if (!call) return { node: parent.run, traceSession: parent.traceSession };
    if (!call.open) {
      // The call has started (its child is starting now): open its tool run here, so the child can nest.
      call.open = { run: parent.run.createChild(toolConfig(call.use, ms(event.time))) };
      this.#post(call.open);
    }
    return { node: call.open.run, traceSession: parent.traceSession };
  }

  #llm(run: RunState, event: ContextTraceEvent<"assistant_message">): void {
    const request = run.requests.get(event.data.turn);
    run.requests.delete(event.data.turn);
    const { data } = event;
    const model = data.message.model ?? request?.data.model ?? "model";
    const llm = run.run.createChild({
      name: model,
      run_type: "llm",
      start_time: ms(data.started_at),
      inputs: request ? llmInputs(request.data) : {},
      metadata: {
        ...llmMetadata(run, data.turn, model, request),
        usage_metadata: usageMetadata(data.usage),
        stop_reason: data.stop_reason,
        ...(data.message.providerResponseId ? { provider_response_id: data.message.providerResponseId } : {}),
      },
    });
    this.#complete(llm, llmOutputs(data), undefined, ms(event.time));
  }

  /** An llm run for a request that ended without a turn (an API error, a timeout, an abort). */
  #failRequest(run: RunState, turn: number, error: string, time: string): void {
    const request = run.requests.get(turn);
    if (!request) return;
    run.requests.delete(turn);
    const llm = run.run.createChild({
      name: request.data.model,
      run_type: "llm",
      start_time: ms(request.time),
      inputs: llmInputs(request.data),
      metadata: llmMetadata(run, turn, request.data.model, request),
    });
    this.#complete(llm, undefined, error, ms(time));
  }

  #toolResult(run: RunState, event: ContextTraceEvent<"tool_result">): void {
    const { data } = event;
    const call = run.calls.get(data.tool_use_id);
    run.calls.delete(data.tool_use_id);
    const outputs = { content: data.content, is_error: data.is_error };
    const error = data.is_error ? contentText(data.content) || "tool error" : undefined;
    const extra = { tool_kind: data.kind, duration_ms: data.duration_ms };
    if (call?.open) {
      this.#finish(call.open, outputs, error, ms(data.ended_at), extra);
      return;
    }
    const use: ContextTraceEvent<"tool_use"> = call?.use ?? {
      ...event,
      type: "tool_use",
      data: { id: data.tool_use_id, name: data.name, input: undefined, turn: data.turn },
    };
    const config = toolConfig(use, ms(data.started_at));
    const tool = run.run.createChild({ ...config, metadata: { ...config.metadata, ...extra } });
    this.#complete(tool, outputs, error, ms(data.ended_at));
  }

  #compaction(run: RunState, event: ContextTraceEvent<"compaction">): void {
    // The history no longer fits: a pending request failed and is retried on the compacted history.
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
    this.#post(run);
    const llm = run.run.createChild({
      name: "compaction",
      run_type: "llm",
      start_time: ms(event.time),
      inputs: { trigger: event.data.trigger, compacted_messages: event.data.compacted_messages },
      metadata: {
        agent_lattice_run_id: run.runId,
        ls_provider: "anthropic",
        ls_model_type: "chat",
        usage_metadata: usageMetadata(event.data.usage),
      },
    });
    this.#complete(
      llm,
      { summary: event.data.summary, usage_metadata: usageMetadata(event.data.usage) },
      undefined,
      ms(event.time),
    );
  }

  #event(run: RunState, event: ContextTraceEvent): void {
    run.run.addEvent({ name: event.type, time: event.time, kwargs: { seq: event.seq, data: event.data } });
  }

  /** Ends a chain run: its unfinished requests and calls first, then the run itself (patched). */
  #end(run: RunState, outputs: KVMap | undefined, error: string | undefined, time: string): void {
    this.#runs.delete(run.runId);
    const leftover = error ?? "the run ended before this completed";
    for (const turn of [...run.requests.keys()]) this.#failRequest(run, turn, leftover, time);
    for (const call of run.calls.values()) {
      if (call.open)
        this.#finish(call.open, undefined, `the run ended before the call returned: ${leftover}`, ms(time));
    }
    run.calls.clear();
    this.#post(run);
    this.#finish(run, outputs, error, ms(time));
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

function toolConfig(use: ContextTraceEvent<"tool_use">, startTime: number): RunTreeConfig {
  return {
    name: use.data.name,
    run_type: "tool",
    start_time: startTime,
    inputs: { input: use.data.input },
    metadata: {
      agent_lattice_run_id: use.run_id,
      agent_lattice_turn: use.data.turn,
      tool_use_id: use.data.id,
      tool_name: use.data.name,
    },
  };
}

function llmMetadata(
  run: RunState,
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
