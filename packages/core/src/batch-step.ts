import type { QueryOptions } from "./agent-options.js";
import type { AgentRuntime } from "./agent-runtime.js";
import type { PendingBatch } from "./approvals.js";
import type { PlannedCall } from "./call-plan.js";
import { EventChannel } from "./event-channel.js";
import { type ToolResultBlock, type ToolUseBlock, textOf } from "./messages.js";
import { pauseFromOutcomes } from "./pending-batch.js";
import type { QueryGuard } from "./query-guard.js";
import type { QueryControl } from "./request-deadline.js";
import type { RunTrace } from "./run-trace.js";
import type { SDKMessage, SDKToolErrorMessage } from "./sdk-messages.js";
import {
  type BatchContext,
  type BatchResult,
  type CallTiming,
  planToolBatch,
  runPlannedBatch,
} from "./tool-batch.js";
import type { ToolCallOutcome } from "./tool-execution.js";
import type { ToolResultData } from "./trace-events.js";
import type { ContextTracer } from "./tracer.js";

/** What one tool-batch step of the loop needs from the running query. */
export interface BatchStepContext {
  runtime: AgentRuntime;
  options: QueryOptions<any>;
  control: QueryControl;
  trace: RunTrace;
  guard: QueryGuard;
  /** The query tracer as delegated children receive it (behind this agent's redaction). */
  childTracer: ContextTracer | undefined;
  /** Counts a call whose handler failed, for the result's tool_errors. */
  countToolError(toolName: string): void;
}

/** How a batch step ended: every call answered (recorded, `user` yielded), or paused inside for approval. */
export type BatchStepResult =
  | { kind: "done"; outcomes: ToolCallOutcome[] }
  | { kind: "paused"; batch: PendingBatch; outcomes: ToolCallOutcome[] };

/**
 * The tool-batch step of the loop, for one assistant turn's calls. plan() decides every call before any runs
 * (validation, permission, approval); run() traces the calls, runs the plan while nested agents' messages stream
 * through, records one result per call in the history and yields the `user` message — or, when a call paused
 * inside (a delegated agent awaiting approval), returns the pause record instead. A throwing onToolResult hook
 * propagates after placeholders keep the history well-formed; an early end of the query is handled by the guard,
 * which records the batch's results itself.
 */
export class BatchStep {
  readonly #nested = new EventChannel<SDKMessage>();
  readonly #batch: BatchContext;

  constructor(
    private readonly step: BatchStepContext,
    private readonly calls: readonly ToolUseBlock[],
    private readonly turn: number,
    truncated: boolean,
  ) {
    const { runtime, options, control, trace, guard } = step;
    this.#batch = {
      tools: runtime.tools.byName,
      permission: runtime.permission,
      context: options.context,
      signal: guard.signal,
      stopSignal: guard.toolSignal,
      graceMs: runtime.toolAbortGraceMs,
      sessionId: runtime.sessionId,
      permissions: options.permissions ?? {},
      concurrency: runtime.concurrency,
      policy: runtime.toolBatchPolicy,
      hooks: runtime.hooks,
      structuredOutput: runtime.outputSchema !== undefined,
      truncated,
      emit: message => this.#nested.push(message),
      run: {
        runId: trace.runId,
        tracer: step.childTracer,
        requestTimeoutMs: options.requestTimeoutMs,
        interrupted: control.interruptController.signal,
        runtime: options.runtime,
      },
      onResult: trace.enabled
        ? (call, outcome, timing) =>
            trace.emit("tool_result", toolResultData(runtime, call, outcome, timing, turn))
        : undefined,
      // A failed handler is announced as the call ends, through the same channel as nested agents' messages.
      onToolError: (call, outcome) => {
        step.countToolError(call.name);
        return this.#nested.push(toolErrorMessage(runtime.sessionId, turn, call, outcome));
      },
    };
  }

  plan(): Promise<PlannedCall[]> {
    return planToolBatch(this.calls, this.#batch);
  }

  async *run(planned: PlannedCall[]): AsyncGenerator<SDKMessage, BatchStepResult, undefined> {
    const { runtime, trace, guard } = this.step;
    if (trace.enabled) {
      for (const entry of planned) {
        if (entry.status === "final") continue; // traced before the pause
        const { call } = entry;
        await trace.emit("tool_use", { id: call.id, name: call.name, input: call.input, turn: this.turn });
      }
    }
    const running = runPlannedBatch(planned, this.#batch);
    const record = (result: BatchResult) => recordResults(runtime, this.calls, result);
    guard.trackBatch(running, this.#nested as EventChannel<unknown>, async result => {
      await record(result);
    });
    // Delegated agents' messages surface while the batch runs, each taken before the next is produced.
    const result = yield* this.#nested.drainUntil(running);
    guard.batchRecorded();
    const paused =
      result.failure?.kind === "hook" ? undefined : pauseFromOutcomes(this.calls, result.outcomes, this.turn);
    if (paused) {
      if (result.failure) throw result.failure.error;
      return { kind: "paused", batch: paused, outcomes: result.outcomes };
    }
    const results = await record(result);
    if (result.failure) throw result.failure.error; // recorded first: the history stays well-formed
    yield {
      type: "user",
      message: { role: "user", content: results },
      session_id: runtime.sessionId,
      turn: this.turn,
    };
    return { kind: "done", outcomes: result.outcomes };
  }
}

/**
 * Appends the batch's results as one user message. After a failing onToolResult hook, every call is answered by a
 * placeholder instead, so nothing the hook was meant to transform is stored.
 */
async function recordResults(
  runtime: AgentRuntime,
  calls: readonly ToolUseBlock[],
  result: BatchResult,
): Promise<ToolResultBlock[]> {
  const results =
    result.failure?.kind === "hook"
      ? calls.map(withheldResult)
      : result.outcomes.map(outcome => outcome.block);
  await runtime.conversation.append({ role: "user", content: results });
  return results;
}

function withheldResult(call: { id: string }): ToolResultBlock {
  return {
    type: "tool_result",
    tool_use_id: call.id,
    content: "The tool result was withheld because an onToolResult hook failed.",
    is_error: true,
  };
}

function toolErrorMessage(
  sessionId: string,
  turn: number,
  call: ToolUseBlock,
  outcome: ToolCallOutcome,
): SDKToolErrorMessage {
  const content = outcome.block.content;
  const message: SDKToolErrorMessage = {
    type: "system",
    subtype: "tool_error",
    session_id: sessionId,
    turn,
    tool_name: call.name,
    tool_use_id: call.id,
    reason: outcome.failure!,
    message: typeof content === "string" ? content : textOf(content),
  };
  if (outcome.error !== undefined) message.error = outcome.error;
  return message;
}

function toolResultData(
  runtime: AgentRuntime,
  call: ToolUseBlock,
  outcome: ToolCallOutcome,
  timing: CallTiming,
  turn: number,
): ToolResultData {
  return {
    tool_use_id: call.id,
    name: call.name,
    kind: runtime.tools.byName.get(call.name)?.kind ?? "tool",
    content: outcome.block.content,
    is_error: outcome.block.is_error === true,
    turn,
    started_at: new Date(timing.startedAt).toISOString(),
    ended_at: new Date(timing.endedAt).toISOString(),
    duration_ms: timing.endedAt - timing.startedAt,
  };
}
