/**
 * An in-process ModelClient that answers from a script, with no HTTP at all. It structurally implements
 * `@agent-lattice/core`'s ModelClient port (without importing core) and emits exactly the events and
 * messages the mock server would, since both encode turns with ./events.js.
 */
import { turnToMessage, turnToStreamEvents } from "./events.js";
import {
  type PromptCacheOptions,
  type PromptCachePlan,
  PromptCacheRequestError,
  PromptCacheSimulator,
} from "./prompt-cache.js";
import { type MockScriptItem, type MockTurn, statusForErrorType } from "./script.js";
import type { MockContentBlock, RawStreamEvent } from "./wire.js";

/** The request a ModelClient receives (the shape of core's `ModelRequest`, widened to plain wire data). */
export interface ScriptedModelRequest {
  model: string;
  maxTokens: number;
  system?: string | Array<{ type: "text"; text: string }>;
  messages: Array<{ role: "user" | "assistant"; content: unknown }>;
  tools: Array<{ name: string; description: string; input_schema: object }>;
  thinking?: object;
  reasoningEffort?: string;
  extraBody?: Record<string, unknown>;
  signal: AbortSignal;
  timeoutMs?: number;
}

/** A recorded request: everything but the signal, deep-copied when the call was made. */
export type ScriptedRequest = Omit<ScriptedModelRequest, "signal">;

/** What `create()` resolves to (the shape of core's `ModelResponse`). */
export interface ScriptedModelResponse {
  message: { role: "assistant"; content: MockContentBlock[]; providerResponseId?: string; model?: string };
  stopReason: string | null;
  usage?: {
    input_tokens?: number | null;
    output_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
    cache_read_input_tokens?: number | null;
  };
}

/** Computes a reply dynamically once the script is empty; `index` is the 0-based position in `requests`. */
export type ScriptedResponder = (
  request: ScriptedRequest,
  index: number,
) => MockScriptItem | Promise<MockScriptItem>;

/** How to create a {@link ScriptedModelClient}. */
export interface ScriptedModelClientOptions {
  /** Replies consumed in order, one per `create()` or `stream()` call. */
  script?: MockScriptItem[];
  /** Computes replies once the script is empty (or always, with no script). */
  respond?: ScriptedResponder;
  /** Characters per delta in `stream()` (default 12), as for the server. */
  chunkSize?: number;
  /** Simulate the provider's prompt cache in usage, as the server's `promptCache` option does. */
  promptCache?: boolean | PromptCacheOptions;
}

/** A scripted ModelClient plus what it recorded and how to extend its script. */
export interface ScriptedModelClient {
  /** One complete response (honours `delayMs` and the request signal). */
  create(request: ScriptedModelRequest): Promise<ScriptedModelResponse>;
  /** The raw stream events of one response (honours `delayMs`, `chunkDelayMs` and the request signal). */
  stream(request: ScriptedModelRequest): AsyncIterable<RawStreamEvent>;
  /** Snapshots of every request, in call order. */
  requests: ScriptedRequest[];
  /** Appends replies to the script. */
  enqueue(...items: MockScriptItem[]): void;
  /** Script items not yet consumed. */
  pending(): number;
  /** The simulated prompt cache, when the client was created with `promptCache`. */
  promptCache: PromptCacheSimulator | undefined;
}

/**
 * A scripted failure, shaped like an HTTP API error: `status` (undefined for in-stream errors), the
 * Anthropic `errorType` and response `headers`. Message: `<status> <errorType>: <message>`.
 */
export class ScriptedModelError extends Error {
  override name = "ScriptedModelError";
  readonly status: number | undefined;
  readonly errorType: string;
  readonly headers: Record<string, string>;

  constructor(
    status: number | undefined,
    errorType: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(`${status === undefined ? "" : `${status} `}${errorType}: ${message}`);
    this.status = status;
    this.errorType = errorType;
    this.headers = headers;
  }
}

/** Creates a scripted in-process ModelClient. */
export function createScriptedModelClient(options: ScriptedModelClientOptions = {}): ScriptedModelClient {
  const queue: MockScriptItem[] = [...(options.script ?? [])];
  const requests: ScriptedRequest[] = [];
  let messageCounter = 0;
  const promptCache = options.promptCache
    ? new PromptCacheSimulator(options.promptCache === true ? {} : options.promptCache)
    : undefined;

  /** Records the request and picks its reply, both at call time (before any await). */
  function begin(request: ScriptedModelRequest): {
    snapshot: ScriptedRequest;
    reply: Promise<MockScriptItem>;
    cachePlan?: PromptCachePlan;
  } {
    const { signal: _signal, ...rest } = request;
    // Deep copy now: the caller's history keeps changing after the call.
    const snapshot = structuredClone(rest);
    requests.push(snapshot);
    const index = requests.length - 1;
    let cachePlan: PromptCachePlan | undefined;
    try {
      cachePlan = promptCache?.plan(snapshot);
    } catch (error) {
      if (!(error instanceof PromptCacheRequestError)) throw error;
      const reply = Promise.reject(new ScriptedModelError(400, "invalid_request_error", error.message));
      reply.catch(() => {});
      return { snapshot, reply };
    }
    const next = queue.shift();
    const reply = next
      ? Promise.resolve(next)
      : options.respond
        ? Promise.resolve().then(() => options.respond!(snapshot, index))
        : Promise.reject(
            new ScriptedModelError(
              400,
              "invalid_request_error",
              `scripted client: no scripted reply for request #${index + 1} (script exhausted)`,
            ),
          );
    // The caller awaits it later; avoid an unhandled-rejection report in between.
    reply.catch(() => {});
    return cachePlan ? { snapshot, reply, cachePlan } : { snapshot, reply };
  }

  /** Called once the response begins, when the simulated cache entry comes into being. */
  const encoding = (snapshot: ScriptedRequest, cachePlan: PromptCachePlan | undefined) => {
    if (cachePlan) promptCache!.commit(cachePlan);
    return {
      id: `msg_mock_${++messageCounter}`,
      requestMessages: snapshot.messages,
      chunkSize: options.chunkSize,
      ...(cachePlan ? { cacheUsage: cachePlan.outcome.usage } : {}),
    };
  };

  async function create(request: ScriptedModelRequest): Promise<ScriptedModelResponse> {
    const { snapshot, reply, cachePlan } = begin(request);
    const item = await reply;
    switch (item.kind) {
      case "turn": {
        await delay(item.delayMs, request.signal);
        const wire = turnToMessage(item, snapshot.model, encoding(snapshot, cachePlan));
        return {
          message: {
            role: "assistant",
            content: wire.content,
            providerResponseId: wire.id,
            model: wire.model,
          },
          stopReason: wire.stop_reason,
          usage: wire.usage,
        };
      }
      case "http_error":
        throw new ScriptedModelError(item.status, item.errorType, item.message, item.headers);
      case "stream_error":
        // Like the server: without a stream, the failure is the matching HTTP error.
        throw new ScriptedModelError(statusForErrorType(item.errorType), item.errorType, item.message);
      case "drop_connection":
        await delay(item.turn.delayMs, request.signal);
        throw new Error("mock: connection dropped");
      case "hang":
        return hangUntilAborted(request.signal);
    }
  }

  async function* streamEvents(
    request: ScriptedModelRequest,
    snapshot: ScriptedRequest,
    reply: Promise<MockScriptItem>,
    cachePlan: PromptCachePlan | undefined,
  ): AsyncGenerator<RawStreamEvent> {
    const item = await reply;
    if (item.kind === "http_error")
      throw new ScriptedModelError(item.status, item.errorType, item.message, item.headers);
    if (item.kind === "hang") return await hangUntilAborted(request.signal);
    const turn: MockTurn = item.kind === "turn" ? item : item.turn;
    const events = turnToStreamEvents(turn, snapshot.model, encoding(snapshot, cachePlan));
    const limit = item.kind === "turn" ? events.length : Math.min(item.afterEvents, events.length);
    await delay(turn.delayMs, request.signal);
    for (let i = 0; i < limit; i++) {
      if (i > 0) await delay(turn.chunkDelayMs, request.signal);
      throwIfAborted(request.signal);
      yield events[i]!;
    }
    if (item.kind === "stream_error") throw new ScriptedModelError(undefined, item.errorType, item.message);
    if (item.kind === "drop_connection") throw new Error("mock: connection dropped mid-stream");
  }

  return {
    create,
    stream(request) {
      const { snapshot, reply, cachePlan } = begin(request);
      return streamEvents(request, snapshot, reply, cachePlan);
    },
    requests,
    enqueue: (...items) => void queue.push(...items),
    pending: () => queue.length,
    promptCache,
  };
}

function abortReason(signal: AbortSignal): unknown {
  if (signal.reason !== undefined) return signal.reason;
  const error = new Error("This operation was aborted");
  error.name = "AbortError";
  return error;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortReason(signal);
}

/** Never settles until `signal` aborts, then rejects with its reason. */
function hangUntilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    signal.addEventListener("abort", () => reject(abortReason(signal)), { once: true });
  });
}

/** Waits `ms` (checking the signal even when there is no delay); rejects promptly if `signal` aborts. */
function delay(ms: number | undefined, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  if (!ms || ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
