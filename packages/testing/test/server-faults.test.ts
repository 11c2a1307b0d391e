// Faults as the official client experiences them: retries, typed errors, broken and hung streams.
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, test } from "vitest";
import {
  dropConnection,
  hang,
  httpError,
  overloaded,
  promptTooLong,
  rateLimited,
  serverError,
  streamError,
  textTurn,
  unauthorized,
} from "../src/index.js";
import { ask, sdk, serve } from "./support.js";

const longTurn = () => textTurn("The quick brown fox jumps over the lazy dog.");

describe("retryable HTTP errors", () => {
  test("429 with retry-after is retried by the SDK, which then succeeds", async () => {
    const server = await serve({ script: [rateLimited(0.01), textTurn("after 429")] });
    const message = await sdk(server, { maxRetries: 1 }).messages.create(ask);
    expect(message.content).toEqual([{ type: "text", text: "after 429" }]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers["x-stainless-retry-count"]).toBe("1");
  });

  test("529 overloaded is retried by the SDK, which then succeeds", async () => {
    const server = await serve({ script: [overloaded(0.01), textTurn("after 529")] });
    const message = await sdk(server, { maxRetries: 1 }).messages.create(ask);
    expect(message.content).toEqual([{ type: "text", text: "after 529" }]);
    expect(server.requests).toHaveLength(2);
  });

  test("500 api_error is retried by the SDK (default backoff), which then succeeds", async () => {
    const server = await serve({ script: [serverError(), textTurn("after 500")] });
    const message = await sdk(server, { maxRetries: 1 }).messages.create(ask);
    expect(message.content).toEqual([{ type: "text", text: "after 500" }]);
    expect(server.requests).toHaveLength(2);
  });

  test("a 429 that outlasts maxRetries surfaces as RateLimitError with retry-after", async () => {
    const server = await serve({ script: [rateLimited(0.01), rateLimited(0.01)] });
    const error = await sdk(server, { maxRetries: 1 })
      .messages.create(ask)
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.type).toBe("rate_limit_error");
    expect(error.headers.get("retry-after")).toBe("0.01");
    expect(server.requests).toHaveLength(2);
  });
});

describe("non-retryable HTTP errors", () => {
  test("400 prompt too long throws BadRequestError with the API's message and type, without retrying", async () => {
    const server = await serve({ script: [promptTooLong()] });
    const error = await sdk(server, { maxRetries: 2 })
      .messages.create(ask)
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.status).toBe(400);
    expect(error.type).toBe("invalid_request_error");
    expect(error.error.error.message).toBe("prompt is too long: 215000 tokens > 200000 maximum");
    expect(error.message).toContain("prompt is too long: 215000 tokens > 200000 maximum");
    expect(error.requestID).toBe("req_mock_1");
    expect(server.requests).toHaveLength(1);
  });

  test("401 throws AuthenticationError", async () => {
    const server = await serve({ script: [unauthorized()] });
    const error = await sdk(server)
      .messages.create(ask)
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.type).toBe("authentication_error");
  });

  test("http_error sends the scripted headers and Anthropic's error body", async () => {
    const server = await serve({ script: [httpError(403, "permission_error", "nope", { "x-custom": "1" })] });
    const error = await sdk(server)
      .messages.create(ask)
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(error.headers.get("x-custom")).toBe("1");
    expect(error.headers.get("content-type")).toBe("application/json");
    expect(error.error).toEqual({
      type: "error",
      error: { type: "permission_error", message: "nope" },
      request_id: "req_mock_1",
    });
  });

  test("the apiKey option rejects a wrong key with 401 and accepts the right one", async () => {
    const server = await serve({ apiKey: "secret", script: [textTurn("welcome")] });
    const wrong = await sdk(server)
      .messages.create(ask)
      .catch(e => e);
    expect(wrong).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(server.pending()).toBe(1);
    const right = new Anthropic({ apiKey: "secret", baseURL: server.url, maxRetries: 0 });
    expect((await right.messages.create(ask)).content).toEqual([{ type: "text", text: "welcome" }]);
  });

  test("the apiKey option accepts Authorization: Bearer", async () => {
    const server = await serve({ apiKey: "token-1", script: [textTurn("hi")] });
    const client = new Anthropic({ authToken: "token-1", apiKey: null, baseURL: server.url, maxRetries: 0 });
    expect((await client.messages.create(ask)).content).toEqual([{ type: "text", text: "hi" }]);
  });

  test("a stream_error fault on a non-streaming request becomes the matching HTTP error", async () => {
    const server = await serve({ script: [streamError(longTurn(), 3)] });
    const error = await sdk(server)
      .messages.create(ask)
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error.status).toBe(529);
    expect(error.type).toBe("overloaded_error");
  });
});

describe("broken streams", () => {
  test("stream_error makes the MessageStream throw an APIError carrying the error type", async () => {
    const server = await serve({ script: [streamError(longTurn(), 4)] });
    const stream = sdk(server).messages.stream(ask);
    const seen: string[] = [];
    stream.on("text", delta => seen.push(delta));
    const error = await stream.finalMessage().catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.status).toBeUndefined();
    expect(error.type).toBe("overloaded_error");
    expect(error.error).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    // message_start, ping, content_block_start, one text_delta were sent before the error.
    expect(seen).toEqual(["The quick br"]);
  });

  test("stream_error makes the raw stream throw after the scripted number of events", async () => {
    const server = await serve({
      script: [streamError(longTurn(), 4, "api_error", "Internal server error")],
    });
    const stream = await sdk(server).messages.create({ ...ask, stream: true });
    const types: string[] = [];
    const error = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch(e => e);
    expect(types).toEqual(["message_start", "content_block_start", "content_block_delta"]); // ping is not surfaced
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.type).toBe("api_error");
  });

  test("stream_error after the last event still delivers the error", async () => {
    const server = await serve({ script: [streamError(textTurn("hi"), Number.POSITIVE_INFINITY)] });
    const stream = await sdk(server).messages.create({ ...ask, stream: true });
    const types: string[] = [];
    const error = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch(e => e);
    expect(types.at(-1)).toBe("message_stop");
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.type).toBe("overloaded_error");
  });

  test("drop_connection makes the raw stream throw (torn stream)", async () => {
    const server = await serve({ script: [dropConnection(longTurn(), 4)] });
    const stream = await sdk(server).messages.create({ ...ask, stream: true });
    const types: string[] = [];
    const error = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch(e => e);
    expect(types).toEqual(["message_start", "content_block_start", "content_block_delta"]);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe("terminated"); // undici's TypeError, not wrapped by the SDK
  });

  test("drop_connection makes the MessageStream throw", async () => {
    const server = await serve({ script: [dropConnection(longTurn(), 6)] });
    const error = await sdk(server)
      .messages.stream(ask)
      .finalMessage()
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect(error.message).toBe("terminated");
  });

  test("drop_connection on a non-streaming request fails with a connection error", async () => {
    const server = await serve({ script: [dropConnection(longTurn(), 0)] });
    const error = await sdk(server)
      .messages.create(ask)
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.APIConnectionError);
  });
});

describe("hang", () => {
  test("an SDK call with a short timeout fails promptly", async () => {
    const server = await serve({ script: [hang()] });
    const started = Date.now();
    const error = await sdk(server)
      .messages.create(ask, { timeout: 100 })
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test("an SDK call aborted by its AbortSignal fails promptly", async () => {
    const server = await serve({ script: [hang()] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await sdk(server)
      .messages.create(ask, { signal: controller.signal })
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.APIUserAbortError);
  });

  test("close() resolves promptly with a hung request open, which then fails", async () => {
    const server = await serve({ script: [hang()] });
    const pending = sdk(server)
      .messages.create(ask)
      .catch(e => e);
    await waitFor(() => server.requests.length === 1);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await pending).toBeInstanceOf(Anthropic.APIConnectionError);
  });

  test("close() is idempotent", async () => {
    const server = await serve();
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise(resolve => setTimeout(resolve, 5));
}
