import type Anthropic from "@anthropic-ai/sdk";
import {
  AbortError,
  AgentLatticeError,
  APIError,
  type APIErrorCode,
  apiErrorCodeOf,
  InvalidOptionError,
} from "./errors.js";
import type { ModelClient, ModelRequest, ModelResponse, RawStreamEvent } from "./model-client.js";
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_DELAY_MS,
  isRetryableStatus,
  type RetryDecision,
  RetryDelayTooLongError,
  type RetryPolicy,
  requestedDelayOf,
  withRetries,
} from "./model-retry.js";
import { openedOnFirstRead } from "./opened-stream.js";
import { assertHttpUrl, assertKnownOptions, assertPositiveInteger } from "./option-validation.js";

export interface AnthropicModelClientOptions {
  /** Defaults to ANTHROPIC_API_KEY, as in @anthropic-ai/sdk. */
  apiKey?: string;
  /** Anthropic-compatible endpoint (DeepSeek: "https://api.deepseek.com/anthropic"). */
  baseURL?: string;
  /** Retries on 408/409/429/5xx and connection errors, honouring retry-after (default 2). */
  maxRetries?: number;
  /**
   * The longest `retry-after` honoured, in ms (default 60000). A provider asking for a longer wait gets its error
   * (429/529) surfaced at once, so the host decides. Retry waits are cancelled with the query.
   */
  maxRetryDelayMs?: number;
  defaultHeaders?: Record<string, string>;
  /** Custom fetch, e.g. for a proxy. */
  fetch?: typeof fetch;
}

type AnthropicModule = typeof import("@anthropic-ai/sdk");
let sdkModule: Promise<AnthropicModule> | undefined;

/**
 * @anthropic-ai/sdk is imported on the first request, not when agent-lattice is imported: hosts that plug in
 * their own ModelClient never load it, and everyone else pays for it exactly once.
 */
function loadSdk(): Promise<AnthropicModule> {
  sdkModule ??= import("@anthropic-ai/sdk");
  return sdkModule;
}

/** The SDK's own default request timeout; set explicitly so long non-streaming requests are the host's call. */
const SDK_DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/** The built-in ModelClient: real HTTP and SSE to the Anthropic Messages API or a compatible provider. */
export function createAnthropicModelClient(options: AnthropicModelClientOptions = {}): ModelClient {
  validateClientOptions(options);
  let client: Promise<Anthropic> | undefined;
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
  };
  const endpoint = options.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com";
  const getClient = () => {
    client ??= loadSdk().then(
      ({ default: AnthropicClient }) =>
        new AnthropicClient({
          // Left undefined when not given, so the SDK's own ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL defaults apply.
          ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
          ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
          // Retries are ours (model-retry.ts): cancellable with the query, with a cap on retry-after.
          maxRetries: 0,
          timeout: SDK_DEFAULT_TIMEOUT_MS,
          ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
        }),
    );
    return client;
  };

  return {
    async create(request: ModelRequest): Promise<ModelResponse> {
      const anthropic = await getClient();
      const classify = await retryClassifier();
      try {
        const response = await withRetries(
          () =>
            anthropic.messages.create(
              toBody(request, false) as unknown as Anthropic.MessageCreateParamsNonStreaming,
              requestOptions(request),
            ),
          classify,
          policy,
          request.signal,
        );
        return {
          message: {
            role: "assistant",
            content: response.content as never,
            providerResponseId: response.id,
            model: response.model,
          },
          stopReason: response.stop_reason,
          usage: response.usage,
        };
      } catch (error) {
        throw await toAgentLatticeError(error, request.signal, endpoint);
      }
    },

    stream(request: ModelRequest): AsyncIterable<RawStreamEvent> {
      const mapError = (error: unknown) => toAgentLatticeError(error, request.signal, endpoint);
      return openedOnFirstRead(async () => {
        const anthropic = await getClient();
        const classify = await retryClassifier();
        // Only opening the stream is retried: once events flowed, a retry would repeat them.
        return (await withRetries(
          () =>
            anthropic.messages.create(
              toBody(request, true) as unknown as Anthropic.MessageCreateParamsStreaming,
              requestOptions(request),
            ),
          classify,
          policy,
          request.signal,
        )) as AsyncIterable<RawStreamEvent>;
      }, mapError);
    },
  };
}

const CLIENT_OPTION_KEYS: ReadonlySet<string> = new Set([
  "apiKey",
  "baseURL",
  "maxRetries",
  "maxRetryDelayMs",
  "defaultHeaders",
  "fetch",
]);

/** Checked when the client is made, so a bad endpoint fails here and not as a connection error mid-query. */
function validateClientOptions(options: AnthropicModelClientOptions): void {
  assertKnownOptions(options, CLIENT_OPTION_KEYS, "createAnthropicModelClient()");
  assertHttpUrl(options.baseURL, "createAnthropicModelClient(): baseURL");
  if (options.baseURL === undefined) {
    assertHttpUrl(process.env.ANTHROPIC_BASE_URL || undefined, "The ANTHROPIC_BASE_URL environment variable");
  }
  if (
    options.maxRetries !== undefined &&
    !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)
  ) {
    throw new InvalidOptionError("createAnthropicModelClient(): maxRetries must be a non-negative integer.");
  }
  assertPositiveInteger(options.maxRetryDelayMs, "createAnthropicModelClient(): maxRetryDelayMs");
}

/**
 * Only the signal is passed: the agent loop enforces requestTimeoutMs by aborting it. The SDK's own `timeout`
 * would be retried as a connection timeout, stretching one deadline into several.
 */
function requestOptions(request: ModelRequest) {
  return { signal: request.signal };
}

/**
 * The Messages API request body. Only fields the host set are sent. System, tools and messages go out as they are:
 * the prompt-cache breakpoints core placed (`cache_control` on blocks) are already in the API's wire format.
 */
export function toBody(request: ModelRequest, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages: request.messages,
  };
  if (request.system !== undefined && request.system !== "") body.system = request.system;
  if (request.tools.length > 0) body.tools = request.tools;
  if (request.thinking) body.thinking = request.thinking;
  if (request.reasoningEffort) body.reasoning_effort = request.reasoningEffort;
  if (request.outputFormat) body.output_config = { format: request.outputFormat };
  if (request.extraBody) Object.assign(body, request.extraBody);
  if (stream) body.stream = true;
  return body;
}

let classifier: Promise<(error: unknown) => RetryDecision> | undefined;

/** Which SDK errors are retried, and after how long the provider asked to wait (made once, on the first request). */
function retryClassifier(): Promise<(error: unknown) => RetryDecision> {
  classifier ??= loadSdk().then(sdk => retryDecisionOf(sdk));
  return classifier;
}

function retryDecisionOf({ APIError: SdkAPIError, APIUserAbortError, APIConnectionError }: AnthropicModule) {
  return (error: unknown): RetryDecision => {
    if (error instanceof APIUserAbortError) return { retry: false };
    if (error instanceof APIConnectionError) return { retry: true };
    if (!(error instanceof SdkAPIError) || typeof error.status !== "number") return { retry: false };
    const headers = error.headers as { get(name: string): string | null } | undefined;
    const verdict = headers?.get("x-should-retry");
    const retry = verdict === "true" ? true : verdict === "false" ? false : isRetryableStatus(error.status);
    return { retry, requestedDelayMs: retry ? requestedDelayOf(headers) : undefined };
  };
}

/** Maps @anthropic-ai/sdk errors onto the SDK's typed errors, keeping status, provider error type and request id. */
async function toAgentLatticeError(error: unknown, signal: AbortSignal, endpoint: string): Promise<unknown> {
  if (error instanceof AgentLatticeError) return error;
  const { APIError: SdkAPIError, APIUserAbortError, APIConnectionError } = await loadSdk();
  if (error instanceof APIUserAbortError || signal.aborted) {
    return new AbortError("The model request was cancelled.", { cause: error });
  }
  if (error instanceof RetryDelayTooLongError) {
    const inner = (await toAgentLatticeError(error.original, signal, endpoint)) as APIError;
    return new APIError(`${inner.message} — ${error.message}. Retry later, or raise maxRetryDelayMs.`, {
      ...(inner.status !== undefined ? { status: inner.status } : {}),
      type: inner.type,
      ...(inner.requestId ? { requestId: inner.requestId } : {}),
      cause: error.original,
    });
  }
  if (error instanceof APIConnectionError) {
    return new APIError(
      `Could not reach the model provider at ${endpoint} (${connectionDetail(error)}). Check baseURL, the network ` +
        "and any proxy; the request was retried before giving up.",
      { type: "connection_error", cause: error },
    );
  }
  if (error instanceof SdkAPIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    const type = body?.error?.type ?? error.type ?? undefined;
    const detail = body?.error?.message ?? error.message;
    const prefix = error.status ? `The model provider answered ${error.status}` : "The model request failed";
    const advice = adviceFor(apiErrorCodeOf(error.status, type ?? undefined), endpoint);
    return new APIError(`${prefix} (${type ?? "api_error"}): ${detail}${advice ? `. ${advice}` : ""}`, {
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(type ? { type } : {}),
      ...(error.requestID ? { requestId: error.requestID } : {}),
      cause: error,
    });
  }
  // A socket torn down mid-stream surfaces from fetch's body reader as a plain TypeError/Error.
  const message = error instanceof Error ? error.message : String(error);
  return new APIError(`The connection to the model provider at ${endpoint} failed mid-request: ${message}`, {
    type: "connection_error",
    cause: error,
  });
}

/** What to do about a provider's error response, by its code; undefined when the provider's message is the advice. */
function adviceFor(code: APIErrorCode, endpoint: string): string | undefined {
  switch (code) {
    case "authentication_error":
      return `Check the API key (apiKey, or ANTHROPIC_API_KEY) and that it is a key of the provider at ${endpoint}`;
    case "permission_error":
      return "The API key may not use this model or endpoint: check the key's permissions and the model name";
    case "not_found_error":
      return `Check the model name and baseURL (${endpoint}): the provider has no such model or path`;
    case "rate_limit_error":
      return "The provider limits your request rate: wait before the next query, or send fewer requests at once";
    case "overloaded_error":
    case "server_error":
      return "The provider failed on its side; try again later";
    default:
      return undefined;
  }
}

/** The most specific reason a connection failed: a system error code (ECONNREFUSED, ENOTFOUND…) when there is one. */
function connectionDetail(error: Error): string {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return error.message;
}
