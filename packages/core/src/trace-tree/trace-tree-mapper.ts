import type { ContextTraceEvent, ToolResultData } from "../trace-events.js";
import {
  resultErrorText,
  resultOutputs,
  runStartMetadata,
  toolResultText,
  traceErrorText,
} from "./trace-payloads.js";

/** A tool call the mapper has seen start. */
export interface TraceCall<Node> {
  use: ContextTraceEvent<"tool_use">;
  /** The call's node, once opened early for a child run nesting under it (else made whole at its result). */
  open?: Node;
}

/** One run (one query of one agent) being mapped. */
export interface TraceRun<Node> {
  readonly runId: string;
  readonly node: Node;
  /** The session id of the trace's root run (its agent's or team's session). */
  readonly traceSession: string;
  /** Model requests waiting for their turn, by turn. */
  readonly requests: Map<number, ContextTraceEvent<"model_request">>;
  /** Tool calls started and not yet returned, by tool_use id. */
  readonly calls: Map<string, TraceCall<Node>>;
}

/**
 * How core's trace events become one tree per query in a hosted tracing backend, whatever its library: the part
 * the LangSmith and Langfuse adapters share. It follows runs, requests and calls; the adapter says what a node
 * is (a LangSmith RunTree, a Langfuse observation) by implementing the hooks. One event at a time, never waiting:
 *
 * - `run_start` opens a run: a root (a new trace) when its parent run is unknown, else a child of the node of
 *   the tool call that started it (`parent_tool_use_id`: a delegation, a member asked by the lead — that call's
 *   node is opened early for it) or of the parent run's node (a team's lead, handed-off members).
 * - `model_request` … `assistant_message` is one model turn; a request that ended without a turn (an `error`
 *   with its turn, a retry, a recovery compaction, the run's end) is a failed request.
 * - `tool_use` … `tool_result` is one tool call with its own start and end; `is_error` makes it an error.
 * - `compaction` is its own node; `result` (or a fatal `error`) ends the run, failing what it left open; every
 *   other event (team events, newer types) goes to `traceEvent`.
 */
export abstract class TraceTreeMapper<Node> {
  readonly #runs = new Map<string, TraceRun<Node>>();

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
        if (event.data.origin !== "prompt" || !this.prompt(run, event)) this.traceEvent(run, event);
        break;
      case "model_request":
        this.beforeChildren(run.node);
        this.#failRequest(run, event.data.turn, "superseded: the request was retried", event.time);
        run.requests.set(event.data.turn, event);
        break;
      case "assistant_message": {
        const request = run.requests.get(event.data.turn);
        run.requests.delete(event.data.turn);
        this.modelTurn(run, event, request, event.data.message.model ?? request?.data.model ?? "model");
        break;
      }
      case "tool_use":
        this.beforeChildren(run.node);
        run.calls.set(event.data.id, { use: event });
        break;
      case "tool_result":
        this.#toolResult(run, event);
        break;
      case "compaction":
        // The history no longer fits: a pending request failed and is retried on the compacted history.
        if (event.data.trigger === "recovery") {
          for (const turn of [...run.requests.keys()]) {
            const reason = "the context window was exceeded; history compacted and retried";
            this.#failRequest(run, turn, reason, event.time);
          }
        }
        this.compaction(run, event);
        break;
      case "error":
        if (event.data.fatal) this.#end(run, undefined, traceErrorText(event.data.error), event.time);
        else if (event.data.turn !== undefined && run.requests.has(event.data.turn)) {
          this.#failRequest(run, event.data.turn, traceErrorText(event.data.error), event.time);
        } else this.traceEvent(run, event);
        break;
      case "result":
        this.#end(run, resultOutputs(event.data), resultErrorText(event.data), event.time);
        break;
      default:
        this.traceEvent(run, event);
    }
  }

  /** Ends every open run, children first (close(): the process is going away; their ends must still be sent). */
  endAll(reason: string): void {
    const now = new Date().toISOString();
    for (const run of [...this.#runs.values()].reverse()) this.#end(run, undefined, reason, now);
  }

  /** A run without a known parent: the root of a new trace. */
  protected abstract startRoot(
    event: ContextTraceEvent<"run_start">,
    metadata: Record<string, unknown>,
  ): Node;
  /** A run nested under `parent` (a tool call's node or its parent run's node). */
  protected abstract startChild(
    parent: Node,
    event: ContextTraceEvent<"run_start">,
    metadata: Record<string, unknown>,
  ): Node;
  /** The query's prompt (`user_message` from "prompt"); false hands it to traceEvent instead. */
  protected abstract prompt(run: TraceRun<Node>, event: ContextTraceEvent<"user_message">): boolean;
  /** A completed model turn of `model` (`request` is undefined when its model_request was not seen). */
  protected abstract modelTurn(
    run: TraceRun<Node>,
    event: ContextTraceEvent<"assistant_message">,
    request: ContextTraceEvent<"model_request"> | undefined,
    model: string,
  ): void;
  /** A request that ended at `time` without a turn. */
  protected abstract failedRequest(
    run: TraceRun<Node>,
    request: ContextTraceEvent<"model_request">,
    error: string,
    time: string,
  ): void;
  /** Opens a call's node at `time`, before its result, because a child run nests under it. */
  protected abstract openCall(run: TraceRun<Node>, use: ContextTraceEvent<"tool_use">, time: string): Node;
  /** Ends an opened call's node: with its result, or (no result) with `error` when the run ended first. */
  protected abstract endCall(
    node: Node,
    use: ContextTraceEvent<"tool_use">,
    result: ToolResultData | undefined,
    error: string | undefined,
    time: string,
  ): void;
  /** A call that returned with nothing nested under it: one node from its start to its end. */
  protected abstract toolCall(
    run: TraceRun<Node>,
    use: ContextTraceEvent<"tool_use">,
    result: ToolResultData,
    error: string | undefined,
  ): void;
  protected abstract compaction(run: TraceRun<Node>, event: ContextTraceEvent<"compaction">): void;
  /** Any other event (team events, newer event types), as an event on its run. */
  protected abstract traceEvent(run: TraceRun<Node>, event: ContextTraceEvent): void;
  /** Ends a run's node (its open requests and calls have been ended). */
  protected abstract endRun(
    run: TraceRun<Node>,
    outputs: Record<string, unknown> | undefined,
    error: string | undefined,
    time: string,
  ): void;
  /** Called before a node gets children (a backend that sends a parent before its children sends it here). */
  protected beforeChildren(_node: Node): void {}

  #start(event: ContextTraceEvent<"run_start">): void {
    const metadata = runStartMetadata(event);
    const parent = this.#parentOf(event);
    this.#runs.set(event.run_id, {
      runId: event.run_id,
      node: parent ? this.startChild(parent.node, event, metadata) : this.startRoot(event, metadata),
      traceSession: parent?.traceSession ?? event.session_id,
      requests: new Map(),
      calls: new Map(),
    });
  }

  /**
   * Where a run hangs: under the node of the call that started it when that call belongs to the parent run
   * (delegation, a member asked by the lead), else under the parent run (a team's lead, handed-off members).
   */
  #parentOf(event: ContextTraceEvent): { node: Node; traceSession: string } | undefined {
    const parent = event.parent_run_id ? this.#runs.get(event.parent_run_id) : undefined;
    if (!parent) return undefined;
    this.beforeChildren(parent.node);
    const call = event.parent_tool_use_id ? parent.calls.get(event.parent_tool_use_id) : undefined;
    if (!call) return { node: parent.node, traceSession: parent.traceSession };
    // The call has started (its child is starting now): open its node here, so the child can nest.
    call.open ??= this.openCall(parent, call.use, event.time);
    return { node: call.open, traceSession: parent.traceSession };
  }

  #failRequest(run: TraceRun<Node>, turn: number, error: string, time: string): void {
    const request = run.requests.get(turn);
    if (!request) return;
    run.requests.delete(turn);
    this.failedRequest(run, request, error, time);
  }

  #toolResult(run: TraceRun<Node>, event: ContextTraceEvent<"tool_result">): void {
    const { data } = event;
    const call = run.calls.get(data.tool_use_id);
    run.calls.delete(data.tool_use_id);
    const error = data.is_error ? toolResultText(data.content) || "tool error" : undefined;
    const use: ContextTraceEvent<"tool_use"> = call?.use ?? {
      ...event,
      type: "tool_use",
      data: { id: data.tool_use_id, name: data.name, input: undefined, turn: data.turn },
    };
    if (call?.open) this.endCall(call.open, use, data, error, data.ended_at);
    else this.toolCall(run, use, data, error);
  }

  /** Ends a run: its unfinished requests and opened calls first, then the run itself. */
  #end(
    run: TraceRun<Node>,
    outputs: Record<string, unknown> | undefined,
    error: string | undefined,
    time: string,
  ): void {
    this.#runs.delete(run.runId);
    const leftover = error ?? "the run ended before this completed";
    for (const turn of [...run.requests.keys()]) this.#failRequest(run, turn, leftover, time);
    for (const call of run.calls.values()) {
      if (call.open)
        this.endCall(
          call.open,
          call.use,
          undefined,
          `the run ended before the call returned: ${leftover}`,
          time,
        );
    }
    run.calls.clear();
    this.endRun(run, outputs, error, time);
  }
}
