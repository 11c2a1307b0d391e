import { raceAbort } from "./abort.js";
import type { QueryOptions } from "./agent-options.js";
import { AbortError, AgentLatticeError, APIError, MaxTurnsError } from "./errors.js";
import {
  type AssistantModelMessage,
  type ModelMessage,
  type PromptInput,
  type ToolResultBlock,
  textOf,
  toolUsesOf,
} from "./messages.js";
import type { ModelClient, ModelRequest, ModelResponse, ModelToolSpec, StopReason } from "./model-client.js";
import type { PermissionCallback } from "./permission.js";
import { buildModelRequest } from "./request-builder.js";
import type { ResultSubtype, SDKMessage, SDKResultMessage } from "./sdk-messages.js";
import { StreamAssembler } from "./stream-assembler.js";
import type { ToolDefinition } from "./tool.js";
import { runToolBatch, truncatedBatchOutcomes } from "./tool-batch.js";
import type { ToolCallOutcome } from "./tool-execution.js";
import { addUsage, emptyUsage, type Usage } from "./usage.js";

/** What the loop reads from the Agent that owns it. */
export interface LoopSession {
  readonly sessionId: string;
  readonly model: string;
  readonly maxTokens: number;
  readonly maxTurns: number;
  readonly system: string | undefined;
  readonly client: ModelClient;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly toolSpecs: readonly ModelToolSpec[];
  readonly permission: PermissionCallback<any> | undefined;
  /** The conversation; the loop appends to it as messages land. */
  readonly history: ModelMessage[];
}

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
  session: LoopSession,
  prompt: PromptInput,
  options: QueryOptions<any>,
  control: QueryControl,
): AsyncGenerator<SDKMessage, void, undefined> {
  yield {
    type: "system",
    subtype: "init",
    session_id: session.sessionId,
    model: session.model,
    tools: session.toolSpecs.map(spec => spec.name),
  };
  session.history.push({ role: "user", content: prompt });
  yield yield* runTurns(session, options, control);
}

/** The turn loop; yields the messages of each turn and returns the result message. */
async function* runTurns(
  session: LoopSession,
  options: QueryOptions<any>,
  control: QueryControl,
): AsyncGenerator<SDKMessage, SDKResultMessage, undefined> {
  const state: QueryState = { startedAt: Date.now(), usage: emptyUsage(), turns: 0, stopReason: null };
  const maxTurns = options.maxTurns ?? session.maxTurns;
  const streaming = options.stream !== false && typeof session.client.stream === "function";
  const querySignal = options.signal ?? new AbortController().signal;
  const finish = (subtype: ResultSubtype, extra: Partial<SDKResultMessage> = {}) =>
    resultMessage(session, state, subtype, extra);

  while (true) {
    if (querySignal.aborted) return finish("error_abort", { error: abortErrorOf(querySignal) });
    if (control.interrupted) return finish("interrupted");
    if (state.turns >= maxTurns) return finish("error_max_turns", { error: new MaxTurnsError(maxTurns) });
    state.turns += 1;

    const requestController = new AbortController();
    control.requestController = requestController;
    const stopListening = forwardAbort(querySignal, requestController);
    const request = buildModelRequest({
      model: session.model,
      maxTokens: session.maxTokens,
      system: session.system,
      tools: session.toolSpecs,
      history: session.history,
      signal: requestController.signal,
    });

    let response: ModelResponse;
    let message: AssistantModelMessage;
    try {
      if (streaming) {
        response = yield* streamTurn(
          session.client,
          request,
          requestController,
          session.sessionId,
          state.turns,
        );
      } else {
        response = await raceAbort(session.client.create(request), requestController.signal);
      }
      message = normalizeAssistant(response.message);
    } catch (error) {
      // The partial assistant message is dropped: history holds only completed turns.
      if (querySignal.aborted) return finish("error_abort", { error: abortErrorOf(querySignal, error) });
      if (control.interrupted) return finish("interrupted");
      return finish("error_during_execution", { error: toModelError(error) });
    } finally {
      stopListening();
      control.requestController = undefined;
    }

    addUsage(state.usage, response.usage);
    state.stopReason = response.stopReason;
    session.history.push(message);
    yield { type: "assistant", message, session_id: session.sessionId, turn: state.turns };

    const calls = toolUsesOf(message);
    if (calls.length === 0) return finish("success", { result: textOf(message.content) });

    const outcomes =
      response.stopReason === "max_tokens"
        ? truncatedBatchOutcomes(calls)
        : await runToolBatch(calls, {
            tools: session.tools,
            permission: session.permission,
            context: options.context,
            signal: querySignal,
            sessionId: session.sessionId,
            permissions: options.permissions ?? {},
          });
    const results: ToolResultBlock[] = outcomes.map(outcome => outcome.block);
    session.history.push({ role: "user", content: results });
    yield {
      type: "user",
      message: { role: "user", content: results },
      session_id: session.sessionId,
      turn: state.turns,
    };

    const ending = outcomes.find(outcome => outcome.endTurn);
    if (ending) return finish("success", endTurnResult(ending));
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

function endTurnResult(outcome: ToolCallOutcome): Partial<SDKResultMessage> {
  const content = outcome.block.content;
  const result: Partial<SDKResultMessage> = {
    result: typeof content === "string" ? content : textOf(content),
  };
  if (outcome.structuredResult !== undefined) result.structuredResult = outcome.structuredResult;
  return result;
}

function resultMessage(
  session: LoopSession,
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
    session_id: session.sessionId,
    ...extra,
  };
}

/** A ModelClient may return any object; history keeps a clean assistant message. */
function normalizeAssistant(message: AssistantModelMessage): AssistantModelMessage {
  if (!message || !Array.isArray(message.content)) {
    throw new APIError(
      'The ModelClient returned a response without message.content; it must return { message: { role: "assistant", content: [...] } }.',
      {
        type: "invalid_response",
      },
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
