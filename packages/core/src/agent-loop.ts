import type { QueryOptions } from "./agent-options.js";
import type { AgentRuntime } from "./agent-runtime.js";
import {
  batchReady,
  isResumeInput,
  type PendingBatch,
  pendingBatchOf,
  type QueryInput,
  recordDecisions,
  undecidedApprovals,
  withPendingBatch,
} from "./approvals.js";
import { BatchStep, type BatchStepContext, type BatchStepResult } from "./batch-step.js";
import { traceCacheControlFallback } from "./cache-control-fallback.js";
import type { PlannedCall } from "./call-plan.js";
import { isPromptTooLongError, reportedInputTokens } from "./compaction.js";
import { compactHistory } from "./compaction-run.js";
import { sealDecision } from "./decision-seal.js";
import {
  AbortError,
  AgentLatticeError,
  APIError,
  ApprovalPendingError,
  InvalidOutputError,
  MaxTurnsError,
  MissingOutputError,
} from "./errors.js";
import { type AssistantModelMessage, type PromptInput, textOf, toolUsesOf } from "./messages.js";
import type { ModelClient, ModelRequest, ModelResponse, StopReason } from "./model-client.js";
import { type CheckedResume, checkResume, editedInputCheck } from "./pause-check.js";
import { pauseFromPlan, planFromPause, resolvedApprovals } from "./pending-batch.js";
import { admitPendingInput } from "./pending-input.js";
import { QueryGuard } from "./query-guard.js";
import { buildModelRequest } from "./request-builder.js";
import { type QueryControl, type RequestScope, RequestScopes } from "./request-deadline.js";
import { errorData, RunTrace, redactingTracer, type TraceEventHook } from "./run-trace.js";
import { validateWithSchema } from "./schema.js";
import type { ResultSubtype, SDKResultMessage } from "./sdk-messages.js";
import { matchSkills, skillsSection } from "./skills.js";
import { StreamAssembler } from "./stream-assembler.js";
import { type LoopOutput, StreamRelay } from "./stream-relay.js";
import { rejectedSubmission } from "./structured-output.js";
import type { ToolCallOutcome } from "./tool-execution.js";
import { rejectOversizedToolInputs } from "./tool-input-limits.js";
import type { ModelRequestData, ResultData } from "./trace-events.js";
import type { ContextTracer } from "./tracer.js";
import { addUsage, emptyUsage, normalizeUsage, type Usage } from "./usage.js";

export type { QueryControl } from "./request-deadline.js";

/** Mutable state of one query. */
export interface QueryState {
  readonly startedAt: number;
  readonly usage: Usage;
  turns: number;
  stopReason: StopReason | null;
  /** Compaction as a recovery from a too-long prompt is attempted once per query. */
  recoveryUsed: boolean;
  /** Responses whose submit_output was rejected (outputSchema runs), against maxOutputAttempts. */
  invalidOutputs: number;
  /** Tool calls whose handler failed, by tool name (the result's tool_errors). */
  toolErrors?: Record<string, number>;
}

function newQueryState(): QueryState {
  return {
    startedAt: Date.now(),
    usage: emptyUsage(),
    turns: 0,
    stopReason: null,
    recoveryUsed: false,
    invalidOutputs: 0,
  };
}

/**
 * The agent loop: request → stream → assemble → tool batch → results → next, as one async generator, so
 * each message is produced only when the consumer asks for the next one (back-pressure, nothing dropped).
 * Whatever way the query ends — result, error, abort, interrupt, or the consumer leaving early — the guard leaves
 * the history well-formed and the agent ready for its next query.
 */
export async function* runQuery(
  runtime: AgentRuntime,
  input: QueryInput,
  options: QueryOptions<any>,
  control: QueryControl,
): AsyncGenerator<LoopOutput, void, undefined> {
  const onTraceEvent = runtime.hooks?.onTraceEvent?.bind(runtime.hooks);
  const redact: TraceEventHook | undefined = onTraceEvent
    ? event => onTraceEvent({ event, context: options.context })
    : undefined;
  const trace = new RunTrace(tracersOf(runtime, options), {
    sessionId: runtime.sessionId,
    source: runtime.name ?? "agent",
    parentRunId: options.parentRunId,
    parentToolUseId: options.parentToolUseId,
    hook: redact,
  });
  const guard = new QueryGuard(options.signal, control.interruptController.signal);
  control.stop = () => guard.stop();
  const throwOnError = options.throwOnError ?? runtime.throwOnError;
  let failed: AgentLatticeError | undefined;
  let completed = false;
  try {
    await runtime.conversation.ensureLoaded();
    // A pause is part of the history, which others may have written: the pause record, the decisions and every
    // stored call are checked before anything is written or run (pause-check.ts).
    const paused = pendingBatchOf(runtime.conversation.messages);
    const resume = isResumeInput(input)
      ? await checkResume(
          runtime,
          runtime.conversation.messages,
          input.approvals,
          resumeCheckOptions(options, guard),
        )
      : undefined;
    if (!resume && paused)
      throw new ApprovalPendingError(undecidedApprovals(paused).map(entry => entry.toolUseId));
    await runtime.tools.refresh(); // tool sources (MCP servers) whose list changed, so init names the real tools
    const tools = runtime.tools.specs.map(spec => spec.name);
    if (trace.enabled) await trace.emit("run_start", { model: runtime.model, tools });
    yield { type: "system", subtype: "init", session_id: runtime.sessionId, model: runtime.model, tools };
    const warnings = runtime.conversation.takeLoadWarnings();
    if (warnings) {
      for (const warning of warnings)
        yield { type: "system", subtype: "history_warning", session_id: runtime.sessionId, warning };
    }
    let result: SDKResultMessage;
    if (resume) {
      result = yield* resumeTurns(
        { runtime, options, control, trace, guard, redact, skills: undefined },
        resume,
      );
    } else {
      const prompt = input as PromptInput;
      await runtime.conversation.append({ role: "user", content: prompt });
      if (trace.enabled) await trace.emit("user_message", { content: prompt, origin: "prompt" });
      const skills = skillsSection(runtime.skills, matchSkills(runtime.skills, textOf(prompt)));
      result = yield* runTurns({ runtime, options, control, trace, guard, redact, skills });
    }
    completed = true;
    if (trace.enabled) await trace.emit("result", resultData(result));
    // The thrown style — except when the consumer itself ended the query early: nobody asked for that error.
    if (throwOnError && result.is_error && result.error && !guard.stoppedEarly) {
      failed = thrownWith(result.error, result);
    } else yield result;
  } catch (error) {
    completed = true; // the loop recorded what it ran before throwing; the guard still answers open calls
    // A hook, store or tracer failure the host asked to see: record it where possible, then propagate.
    if (trace.enabled) await trace.emit("error", { error: errorData(error), fatal: true }).catch(() => {});
    throw error;
  } finally {
    await guard.settle(runtime.conversation, completed);
  }
  if (failed) throw failed; // throwOnError: after the guard settled, outside the catch that records fatal errors
}

/** The thrown style: the result's typed error, carrying the result itself (not enumerable: it refers back). */
function thrownWith(error: AgentLatticeError, result: SDKResultMessage): AgentLatticeError {
  Object.defineProperty(error, "result", { value: result, enumerable: false, configurable: true });
  return error;
}

/**
 * A resumed query: the person's decisions are recorded and announced; when every call of the paused batch is
 * decided, the batch runs and the loop goes on, otherwise the query ends awaiting the rest.
 */
async function* resumeTurns(
  context: TurnsContext,
  resume: CheckedResume,
): AsyncGenerator<LoopOutput, SDKResultMessage, undefined> {
  const { runtime, trace } = context;
  const { message, paused, decisions, fresh } = resume;
  const resolved = resolvedApprovals(undecidedApprovals(paused), decisions);
  const batch = recordDecisions(paused, decisions, decision => sealDecision(runtime.approvalKey, decision));
  if (trace.enabled) await trace.emit("approval_resolved", { decisions: resolved });
  yield { type: "approval_resolved", decisions: resolved, session_id: runtime.sessionId };
  if (batchReady(batch)) return yield* runTurns({ ...context, resume: { message, batch, fresh } });
  await runtime.conversation.updateLast(withPendingBatch(message, batch));
  const approvals = undecidedApprovals(batch);
  return resultMessage(runtime, newQueryState(), "awaiting_approval", { pendingApprovals: approvals });
}

function resumeCheckOptions(options: QueryOptions<any>, guard: QueryGuard) {
  return { context: options.context, permissions: options.permissions ?? {}, signal: guard.signal };
}

function tracersOf(runtime: AgentRuntime, options: QueryOptions<any>): ContextTracer[] {
  const tracers: ContextTracer[] = [];
  if (runtime.tracer) tracers.push(runtime.tracer);
  if (options.tracer && options.tracer !== runtime.tracer) tracers.push(options.tracer);
  return tracers;
}

interface TurnsContext {
  /**
   * A resumed query: the paused batch (its assistant message, the decided pause record and, for a batch none of
   * whose calls had run, the batch as planned again when it was checked) runs first.
   */
  resume?:
    | { message: AssistantModelMessage; batch: PendingBatch; fresh: PlannedCall[] | undefined }
    | undefined;
  runtime: AgentRuntime;
  options: QueryOptions<any>;
  control: QueryControl;
  trace: RunTrace;
  guard: QueryGuard;
  redact: TraceEventHook | undefined;
  /** Per-query system-prompt additions (the skills section). */
  skills: string | undefined;
}

/** The turn loop; yields the messages of each turn and returns the result message. */
async function* runTurns(context: TurnsContext): AsyncGenerator<LoopOutput, SDKResultMessage, undefined> {
  const { runtime, options, control, trace, guard, skills } = context;
  const state = newQueryState();
  const maxTurns = options.maxTurns ?? runtime.maxTurns;
  const timeoutMs = options.requestTimeoutMs ?? runtime.requestTimeoutMs;
  const streaming = options.stream !== false && typeof runtime.client.stream === "function";
  // The query's signal, or its consumer leaving while a step was pending (QueryGuard.stop()).
  const querySignal = guard.signal;
  const scopes = new RequestScopes(querySignal, control, timeoutMs);
  const newScope = () => scopes.open();
  const finish = async (subtype: ResultSubtype, extra: Partial<SDKResultMessage> = {}) => {
    if (extra.error && trace.enabled) {
      await trace.emit("error", { error: errorData(extra.error), turn: state.turns });
    }
    return resultMessage(runtime, state, subtype, extra);
  };
  const step: BatchStepContext = {
    runtime,
    options,
    control,
    trace,
    guard,
    // Delegated agents receive the query's tracer behind this agent's redaction, so it covers their events too.
    childTracer:
      options.tracer && context.redact ? redactingTracer(options.tracer, context.redact) : options.tracer,
    countToolError: name => {
      state.toolErrors ??= {};
      state.toolErrors[name] = (state.toolErrors[name] ?? 0) + 1;
    },
  };
  const compact = (trigger: "threshold" | "recovery") =>
    compactHistory(runtime, trigger, state, newScope, trace);

  /** Ends the query for a person's decision: the approvals are announced, the pause is already stored. */
  async function* awaitApproval(
    paused: PendingBatch,
    turn: number,
  ): AsyncGenerator<LoopOutput, SDKResultMessage, undefined> {
    const approvals = undecidedApprovals(paused);
    if (trace.enabled) await trace.emit("approval_requested", { turn, approvals });
    yield { type: "approval_requested", approvals, session_id: runtime.sessionId, turn };
    return finish("awaiting_approval", { pendingApprovals: approvals });
  }

  /** After a batch ran: a pause, a tool that ended the run, or the runtime seam before the next request. */
  async function* afterBatch(
    ran: BatchStepResult,
    message: AssistantModelMessage,
    turn: number,
  ): AsyncGenerator<LoopOutput, SDKResultMessage | undefined, undefined> {
    for (const outcome of ran.outcomes) addUsage(state.usage, outcome.usage);
    if (ran.kind === "paused") {
      await runtime.conversation.updateLast(withPendingBatch(message, ran.batch));
      return yield* awaitApproval(ran.batch, turn);
    }
    if (runtime.outputSchema) {
      // A payload that never validates would otherwise use every remaining turn: stop after a few rejections.
      const rejected = rejectedSubmission(toolUsesOf(message), ran.outcomes);
      if (rejected !== undefined && ++state.invalidOutputs >= runtime.maxOutputAttempts) {
        const error = new InvalidOutputError(state.invalidOutputs, rejected);
        return finish("error_invalid_output", { error });
      }
    }
    const ending = ran.outcomes.find(outcome => outcome.endTurn);
    if (ending) return finish(...(await endTurnResult(runtime, ending)));
    // The runtime seam: a runtime (a team) may hold the next request until input it awaits has arrived.
    if (options.runtime?.pendingInput) {
      const admitted = yield* admitPendingInput(options.runtime, runtime, trace, control, guard, turn);
      if (admitted === "stopped") return undefined; // the loop's top reports the abort or interrupt
      if (admitted.length) {
        await runtime.conversation.append({ role: "user", content: admitted });
        if (trace.enabled) await trace.emit("user_message", { content: admitted, origin: "runtime" });
      }
    }
    return undefined;
  }

  try {
    if (context.resume) {
      // A resumed query first finishes the batch that paused (turn 0: before this query's first request).
      const { message, batch: paused, fresh } = context.resume;
      const calls = toolUsesOf(message);
      const authorise = editedInputCheck(runtime, resumeCheckOptions(options, guard));
      const planned = await planFromPause(paused, calls, runtime.tools.byName, fresh, authorise);
      // At most once: the pause goes before anything runs, so a crash from here on leaves the calls answered "did
      // not complete" by the next load's repair, never runnable again.
      await runtime.conversation.updateLast(withPendingBatch(message, undefined));
      const ended = yield* afterBatch(yield* new BatchStep(step, calls, 0, false).run(planned), message, 0);
      if (ended) return ended;
    }

    while (true) {
      if (querySignal.aborted) return finish("error_abort", { error: abortErrorOf(querySignal) });
      if (control.interrupted) return finish("interrupted");
      if (state.turns >= maxTurns) return finish("error_max_turns", { error: new MaxTurnsError(maxTurns) });
      if (runtime.compaction && runtime.lastInputTokens > runtime.compaction.thresholdTokens) {
        runtime.lastInputTokens = 0; // one attempt per report, whether or not there was anything to summarize
        yield* compact("threshold");
        continue; // re-check abort / interrupt after the summarizing request
      }
      state.turns += 1;

      const scope = newScope();
      let response: ModelResponse;
      let message: AssistantModelMessage;
      let requestedAt = Date.now();
      try {
        // A throwing onModelRequest hook propagates out of query(): it is the host's code, not a model failure.
        const request = await buildModelRequest(
          runtime,
          options,
          state.turns,
          scope.signal,
          skills,
          timeoutMs,
        );
        requestedAt = Date.now();
        if (trace.enabled) await trace.emit("model_request", requestData(request, state.turns), requestedAt);
        try {
          response = streaming
            ? yield* streamTurn(runtime.client, request, scope, runtime.sessionId, state.turns)
            : await scope.race(runtime.client.create(request));
          message = rejectOversizedToolInputs(normalizeAssistant(response.message));
        } catch (error) {
          // The partial assistant message is dropped: history holds only completed turns.
          if (querySignal.aborted) return finish("error_abort", { error: abortErrorOf(querySignal, error) });
          if (control.interrupted) return finish("interrupted");
          if (scope.timeout) return finish("error_timeout", { error: scope.timeout });
          const modelError = toModelError(error);
          if (
            canRecover(runtime, state) &&
            isPromptTooLongError(modelError) &&
            (yield* compact("recovery"))
          ) {
            state.turns -= 1; // the rejected request does not count as a turn; retry it on the compacted history
            continue;
          }
          return finish("error_during_execution", { error: modelError });
        }
      } finally {
        scope.dispose();
      }

      await traceCacheControlFallback(runtime.promptCache, trace);
      addUsage(state.usage, response.usage);
      state.stopReason = response.stopReason;
      if (response.stopReason === "model_context_window_exceeded" && canRecover(runtime, state)) {
        if (yield* compact("recovery")) {
          state.turns -= 1;
          continue;
        }
      }
      runtime.lastInputTokens = reportedInputTokens(response.usage);
      const calls = toolUsesOf(message);
      // Every call of the batch is decided (validation, permission, approval) before the turn is recorded, so a
      // batch that needs a person is stored with its pause record in one write.
      const batch = calls.length
        ? new BatchStep(step, calls, state.turns, response.stopReason === "max_tokens")
        : undefined;
      const planned = batch ? await batch.plan() : undefined;
      const pause = planned ? pauseFromPlan(planned, state.turns) : undefined;
      await runtime.conversation.append(pause ? withPendingBatch(message, pause) : message);
      if (trace.enabled) {
        await trace.emit("assistant_message", {
          turn: state.turns,
          message,
          stop_reason: response.stopReason,
          usage: normalizeUsage(response.usage),
          started_at: new Date(requestedAt).toISOString(),
          duration_ms: Date.now() - requestedAt,
        });
      }
      yield { type: "assistant", message, session_id: runtime.sessionId, turn: state.turns };

      if (!batch) {
        if (runtime.outputSchema) return finish("error_missing_output", { error: new MissingOutputError() });
        return finish("success", { result: textOf(message.content) });
      }
      if (pause) return yield* awaitApproval(pause, state.turns);
      const ended = yield* afterBatch(yield* batch.run(planned!), message, state.turns);
      if (ended) return ended;
    }
  } finally {
    scopes.close();
  }
}

function canRecover(runtime: AgentRuntime, state: QueryState): boolean {
  if (!runtime.compaction || state.recoveryUsed) return false;
  state.recoveryUsed = true;
  return true;
}

/**
 * Streams one model response and returns it assembled. Its events reach the consumer as stream_event messages
 * through the StreamRelay yielded here (read by QueryIterator, not passed up through each generator of the loop);
 * this generator resumes once the stream ended or failed.
 */
async function* streamTurn(
  client: ModelClient,
  request: ModelRequest,
  scope: RequestScope,
  sessionId: string,
  turn: number,
): AsyncGenerator<LoopOutput, ModelResponse, undefined> {
  const events = client.stream!(request)[Symbol.asyncIterator]();
  const relay = new StreamRelay(events, new StreamAssembler(), sessionId, turn);
  if (scope.aborted) relay.abort(scope.signal.reason);
  else scope.onAbort = reason => relay.abort(reason);
  try {
    yield relay;
    return relay.result();
  } finally {
    // The consumer stopped early, or the stream failed: release the HTTP response instead of leaking it.
    if (!relay.ended) {
      scope.abort(new AbortError("The query stopped consuming the model stream."));
      events.return?.()?.catch(() => {});
    }
  }
}

/**
 * A tool ended the run. With an outputSchema, the structured result must satisfy it (submit_output was already
 * validated as tool input; a custom endTurn tool's structuredResult is checked here).
 */
async function endTurnResult(
  runtime: AgentRuntime,
  outcome: ToolCallOutcome,
): Promise<[ResultSubtype, Partial<SDKResultMessage>]> {
  const content = outcome.block.content;
  const text = typeof content === "string" ? content : textOf(content);
  if (!runtime.outputSchema) {
    const extra: Partial<SDKResultMessage> = { result: text };
    if (outcome.structuredResult !== undefined) extra.structuredResult = outcome.structuredResult;
    return ["success", extra];
  }
  const checked =
    outcome.structuredResult === undefined
      ? undefined
      : await validateWithSchema(runtime.outputSchema, outcome.structuredResult);
  if (!checked?.ok) {
    const reason = checked
      ? `its structuredResult failed the outputSchema: ${checked.message}`
      : "it carried no structuredResult";
    return [
      "error_missing_output",
      { result: text, error: new MissingOutputError(`A tool ended the run but ${reason}.`) },
    ];
  }
  return ["success", { result: JSON.stringify(checked.value), structuredResult: checked.value }];
}

/**
 * The result message. A failed run without text of its own carries the error's message as its `result`, so the
 * obvious `console.log(result.result)` says why; the typed error is on `error`.
 */
function resultMessage(
  runtime: AgentRuntime,
  state: QueryState,
  subtype: ResultSubtype,
  extra: Partial<SDKResultMessage>,
): SDKResultMessage {
  const result: SDKResultMessage = {
    type: "result",
    subtype,
    is_error: subtype.startsWith("error_"),
    result: extra.error ? extra.error.message : "",
    usage: state.usage,
    stop_reason: state.stopReason,
    num_turns: state.turns,
    duration_ms: Date.now() - state.startedAt,
    session_id: runtime.sessionId,
    ...extra,
  };
  if (state.toolErrors) result.tool_errors = state.toolErrors;
  return result;
}

function requestData(request: ModelRequest, turn: number): ModelRequestData {
  return {
    turn,
    model: request.model,
    max_tokens: request.maxTokens,
    system: request.system,
    tools: request.tools.map(spec => spec.name),
    messages: [...request.messages],
    ...(request.thinking ? { thinking: request.thinking } : {}),
    ...(request.reasoningEffort ? { reasoning_effort: request.reasoningEffort } : {}),
    ...(request.outputFormat ? { output_format: request.outputFormat } : {}),
  };
}

function resultData(result: SDKResultMessage): ResultData {
  const { type: _type, session_id: _session, error, ...rest } = result;
  return { ...rest, ...(error ? { error: errorData(error) } : {}) };
}

/** A ModelClient may return any object; history keeps a clean assistant message. */
function normalizeAssistant(message: AssistantModelMessage): AssistantModelMessage {
  if (!message || !Array.isArray(message.content)) {
    throw new APIError(
      'The ModelClient returned a response without message.content; it must return { message: { role: "assistant", content: [...] } }.',
      { type: "invalid_response" },
    );
  }
  if (message.role === "assistant") return message;
  return { ...message, role: "assistant" };
}

function abortErrorOf(signal: AbortSignal, cause?: unknown): AbortError {
  // The consumer leaving (QueryGuard.stop()) aborts with an AbortError that says so.
  if (signal.reason instanceof AbortError) return signal.reason;
  return new AbortError(undefined, { cause: cause ?? signal.reason });
}

export function toModelError(error: unknown): AgentLatticeError {
  if (error instanceof AgentLatticeError) return error;
  const details = error as { status?: unknown; errorType?: unknown; type?: unknown } | undefined;
  const status = typeof details?.status === "number" ? details.status : undefined;
  const type =
    typeof details?.errorType === "string"
      ? details.errorType
      : typeof details?.type === "string"
        ? details.type
        : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new APIError(`The model request failed: ${message}`, {
    ...(status !== undefined ? { status } : {}),
    ...(type ? { type } : {}),
    cause: error,
  });
}
