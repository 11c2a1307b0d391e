import { hasCacheControl, withoutCacheControl } from "./cache-breakpoints.js";
import type { ModelClient, ModelRequest, ModelResponse, RawStreamEvent } from "./model-client.js";
import type { PromptCacheState } from "./prompt-caching.js";
import { errorData, type RunTrace } from "./run-trace.js";

/**
 * Wraps an agent's ModelClient so that a provider that refuses `cache_control` never breaks a run: when a request
 * carrying breakpoints fails with a 400/422 invalid-request error that names cache_control, it is sent once more
 * without them, and from then on this agent sends none. Every other error passes through unchanged.
 */
export function withCacheControlFallback(client: ModelClient, state: PromptCacheState): ModelClient {
  const wrapped: ModelClient = {
    async create(request: ModelRequest): Promise<ModelResponse> {
      if (state.rejected) return client.create(withoutCacheControl(request));
      try {
        return await client.create(request);
      } catch (error) {
        if (!isCacheControlRejection(error) || !hasCacheControl(request)) throw error;
        state.reject(error);
        return client.create(withoutCacheControl(request));
      }
    },
  };
  const stream = client.stream?.bind(client);
  if (stream) {
    wrapped.stream = async function* (request: ModelRequest): AsyncIterable<RawStreamEvent> {
      if (state.rejected) {
        yield* stream(withoutCacheControl(request));
        return;
      }
      let started = false;
      try {
        for await (const event of stream(request)) {
          started = true;
          yield event;
        }
      } catch (error) {
        // Once events have been yielded the request was accepted: a later failure is not about the markers.
        if (started || !isCacheControlRejection(error) || !hasCacheControl(request)) throw error;
        state.reject(error);
        yield* stream(withoutCacheControl(request));
      }
    };
  }
  return wrapped;
}

/**
 * A provider's refusal of the field: HTTP 400 or 422 (or an invalid_request_error) whose message names
 * cache_control, e.g. `messages.0.content.0.cache_control: Extra inputs are not permitted`.
 */
export function isCacheControlRejection(error: unknown): boolean {
  const details = error as { status?: unknown; type?: unknown; errorType?: unknown; message?: unknown };
  if (!details || typeof details.message !== "string" || !/cache[_ ]control/i.test(details.message)) {
    return false;
  }
  return (
    details.status === 400 ||
    details.status === 422 ||
    details.type === "invalid_request_error" ||
    details.errorType === "invalid_request_error"
  );
}

/** Writes the one trace note about a refusal (in the first traced run after it happened). */
export async function traceCacheControlFallback(state: PromptCacheState, trace: RunTrace): Promise<void> {
  if (!state.rejected || state.noted || !trace.enabled) return;
  state.noted = true;
  await trace.emit("error", {
    error: errorData(state.rejection),
    during: "prompt_caching",
    recovered: true,
    note:
      "The provider rejected cache_control. The request was sent again without cache breakpoints, and this " +
      "agent sends none from now on. Set promptCaching: false for this provider to skip the rejected request.",
  });
}
