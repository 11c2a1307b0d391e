import { raceAbort } from "./abort.js";
import type { QueryOptions } from "./agent-options.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { AbortError, AgentLatticeError, APIError, MaxTurnsError, MissingOutputError } from "./errors.js";
import {
  type AssistantModelMessage,
  type PromptInput,
  type ToolResultBlock,
  textOf,
  toolUsesOf,
} from "./messages.js";
import type { ModelClient, ModelRequest, ModelResponse, StopReason } from "./model-client.js";
import { buildModelRequest } from "./request-builder.js";
import { validateWithSchema } from "./schema.js";
import type { ResultSubtype, SDKMessage, SDKResultMessage } from "./sdk-messages.js";
import { StreamAssembler } from "./stream-assembler.js";
import { runToolBatch } from "./tool-batch.js";
import type { ToolCallOutcome } from "./tool-execution.js";
import { addUsage, emptyUsage, type Usage } from "./usage.js";

/** Shared between a running query and Agent.interrupt(). */
export interface QueryControl {
  interrupted: boolean;
  /** Aborts only the in-flight model request. */
  requestController: AbortController | undefined;
}

/** Mutable state of one query. */
interface QueryState {
  readonly startedAt: number;
  readonly usage: Usage;
  turns: number;
  stopReason: StopReason | null;
}

/**
 * The agent loop: request → stream → assemble → tool batch → results → next, as one async generator, so
 * each message is produced only when the consumer asks for the next one (back-pressure, nothing dropped).
 */
export async function* runQuery(
  runtime: AgentRuntime,
  prompt: PromptInput,
  options: QueryOptions<any>,
  control: QueryControl,
): AsyncGenerator<SDKMessage, void, undefined> {
  yield {
    type: "system",
    subtype: "init",
    session_id: runtime.sessionId,
    model: runtime.model,
    tools: runtime.tools.specs.map(spec => spec.name),
  };
  runtime.history.push({ role: "user", content: prompt });
  yield yield* runTurns(runtime, options, control);
}

/** The turn loop; yields the messages of each turn and returns the result message. */
async function* runTurns(
  runtime: AgentRuntime,
  options: QueryOptions<any>,
  control: QueryControl,
): AsyncGenerator<SDKMessage, SDKResultMessage, undefined> {
  const state: QueryState = { startedAt: Date.now(), usage: emptyUsage(), turns: 0, stopReason: null };
  const maxTurns = options.maxTurns ?? runtime.maxTurns;
  const streaming = options.stream !== false && typeof runtime.client.stream === "function";
  const querySignal = options.signal ?? new AbortController().signal;
  const finish = (subtype: ResultSubtype, extra: Partial<SDKResultMessage> = {}) =>
    resultMessage(runtime, state, subtype, extra);

  while (true) {
    if (querySignal.aborted) return finish("error_abort", { error: abortErrorOf(querySignal) });
    if (control.interrupted) return finish("interrupted");
    if (state.turns >= maxTurns) return finish("error_max_turns", { error: new MaxTurnsError(maxTurns) });
    state.turns += 1;

    const requestController = new AbortController();
    control.requestController = requestController;
    const stopListening = forwardAbort(querySignal, requestController);
    let response: ModelResponse;
    let message: AssistantModelMessage;
    try {
      // A throwing onModelRequest hook propagates out of query(): it is the host's code, not a model failure.
      const request = await buildModelRequest(runtime, options, state.turns, requestController.signal);
      try {
        if (streaming) {
          response = yield* streamTurn(
            runtime.client,
            request,
            requestController,
            runtime.sessionId,
            state.turns,
          );
        } else {
          response = await raceAbort(runtime.client.create(request), requestController.signal);
        }
        message = normalizeAssistant(response.message);
      } catch (error) {
        // The partial assistant message is dropped: history holds only completed turns.
        if (querySignal.aborted) return finish("error_abort", { error: abortErrorOf(querySignal, error) });
        if (control.interrupted) return finish("interrupted");
        return finish("error_during_execution", { error: toModelError(error) });
      }
    } finally {
      stopListening();
      control.requestController = undefined;
    }

    addUsage(state.usage, response.usage);
    state.stopReason = response.stopReason;
    runtime.history.push(message);
    yield { type: "assistant", message, session_id: runtime.sessionId, turn: state.turns };

    const calls = toolUsesOf(message);
    if (calls.length === 0) {
      if (runtime.outputSchema) return finish("error_missing_output", { error: new MissingOutputError() });
      return finish("success", { result: textOf(message.content) });
    }

    let outcomes: ToolCallOutcome[];
    try {
      outcomes = await runToolBatch(calls, {
        tools: runtime.tools.byName,
        permission: runtime.permission,
        context: options.context,
        signal: querySignal,
        sessionId: runtime.sessionId,
        permissions: options.permissions ?? {},
        concurrency: runtime.concurrency,
        policy: runtime.toolBatchPolicy,
        hooks: runtime.hooks,
        structuredOutput: runtime.outputSchema !== undefined,
        truncated: response.stopReason === "max_tokens",
      });
    } catch (hookError) {
      // An onToolResult hook threw. Keep the history well-formed without storing what the hook was meant to
      // transform: every tool_use is answered by a placeholder, then the error propagates out of query().
      runtime.history.push({ role: "user", content: calls.map(withheldResult) });
      throw hookError;
    }
    const results: ToolResultBlock[] = outcomes.map(outcome => outcome.block);
    runtime.history.push({ role: "user", content: results });
    yield {
      type: "user",
      message: { role: "user", content: results },
      session_id: runtime.sessionId,
      turn: state.turns,
    };

    const ending = outcomes.find(outcome => outcome.endTurn);
    if (ending) return finish(...(await endTurnResult(runtime, ending)));
  }
}

/** Streams one model response, yielding each raw event as a stream_event, and returns it assembled. */
async function* streamTurn(
  client: ModelClient,
  request: ModelRequest,
  controller: AbortController,
  sessionId: string,
  turn: number,
): AsyncGenerator<SDKMessage, ModelResponse, undefined> {
  const assembler = new StreamAssembler();
  const events = client.stream!(request)[Symbol.asyncIterator]();
  let done = false;
  try {
    while (true) {
      const next = await raceAbort(events.next(), controller.signal);
      if (next.done) break;
      assembler.push(next.value);
      yield { type: "stream_event", event: next.value, session_id: sessionId, turn };
    }
    done = true;
    return assembler.finish();
  } finally {
    // The consumer stopped early, or the stream failed: release the HTTP response instead of leaking it.
    if (!done) {
      controller.abort(new AbortError("The query stopped consuming the model stream."));
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

function withheldResult(call: { id: string }): ToolResultBlock {
  return {
    type: "tool_result",
    tool_use_id: call.id,
    content: "The tool result was withheld because an onToolResult hook failed.",
    is_error: true,
  };
}

function resultMessage(
  runtime: AgentRuntime,
  state: QueryState,
  subtype: ResultSubtype,
  extra: Partial<SDKResultMessage>,
): SDKResultMessage {
  return {
    type: "result",
    subtype,
    is_error: subtype.startsWith("error_"),
    result: "",
    usage: state.usage,
    stop_reason: state.stopReason,
    num_turns: state.turns,
    duration_ms: Date.now() - state.startedAt,
    session_id: runtime.sessionId,
    ...extra,
  };
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

function forwardAbort(source: AbortSignal, target: AbortController): () => void {
  if (source.aborted) {
    target.abort(source.reason);
    return () => {};
  }
  const onAbort = () => target.abort(source.reason);
  source.addEventListener("abort", onAbort, { once: true });
  return () => source.removeEventListener("abort", onAbort);
}

function abortErrorOf(signal: AbortSignal, cause?: unknown): AbortError {
  return new AbortError(undefined, { cause: cause ?? signal.reason });
}

function toModelError(error: unknown): AgentLatticeError {
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
