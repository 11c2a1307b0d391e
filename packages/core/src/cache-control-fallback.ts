import { hasCacheControl, withoutCacheControl } from "./cache-breakpoints.js";
import { DIRECT_READ, type DirectReadable, directReadOf } from "./direct-read.js";
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
    wrapped.stream = (request: ModelRequest): AsyncIterable<RawStreamEvent> =>
      state.rejected ? stream(withoutCacheControl(request)) : fallbackStream(stream, request, state);
  }
  return wrapped;
}

/**
 * The stream of `request`; when opening it fails with a refusal of the markers (before any event arrived), the
 * stream of the same request without them. Forwards next() rather than re-yielding from an async generator: a
 * generator layer per model stream event is measurable on a long tool loop.
 */
function fallbackStream(
  stream: (request: ModelRequest) => AsyncIterable<RawStreamEvent>,
  request: ModelRequest,
  state: PromptCacheState,
): AsyncIterable<RawStreamEvent> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<RawStreamEvent> & DirectReadable {
      let events = stream(request)[Symbol.asyncIterator]();
      let started = false;
      const retryWithoutMarkers = (error: unknown): Promise<IteratorResult<RawStreamEvent>> => {
        // Once events have arrived the request was accepted: a later failure is not about the markers.
        if (started || !isCacheControlRejection(error) || !hasCacheControl(request)) throw error;
        started = true;
        state.reject(error);
        events = stream(withoutCacheControl(request))[Symbol.asyncIterator]();
        return events.next();
      };
      return {
        // Once the first event arrived, the stream's own promises are handed out as they are, and so is its direct
        // read, if it offers one.
        [DIRECT_READ]: () => (started ? directReadOf(events) : undefined),
        next: () =>
          started
            ? events.next()
            : events.next().then(result => {
                started = true;
                return result;
              }, retryWithoutMarkers),
        return: value => events.return?.(value) ?? Promise.resolve({ done: true, value }),
      };
    },
  };
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
