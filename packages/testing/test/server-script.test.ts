// Script bookkeeping and routing: what the server answers when, and what it records.
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, test } from "vitest";
import { type RecordedRequest, textTurn, toolTurn } from "../src/index.js";
import { ask, post, sdk, serve } from "./support.js";

describe("script queue", () => {
  test("an exhausted script answers 400 with the documented message, not retried", async () => {
    const server = await serve({ script: [textTurn("only one")] });
    const client = sdk(server, { maxRetries: 2 });
    await client.messages.create(ask);
    const error = await client.messages.create(ask).catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.type).toBe("invalid_request_error");
    expect(error.error.error.message).toBe(
      "mock server: no scripted reply for request #2 (script exhausted)",
    );
    expect(server.requests).toHaveLength(2);
  });

  test("enqueue appends and pending counts unconsumed items", async () => {
    const server = await serve({ script: [textTurn("a")] });
    server.enqueue(textTurn("b"), textTurn("c"));
    expect(server.pending()).toBe(3);
    const client = sdk(server);
    const texts = [];
    for (let i = 0; i < 3; i++) texts.push((await client.messages.create(ask)).content[0]);
    expect(texts).toEqual(["a", "b", "c"].map(text => ({ type: "text", text })));
    expect(server.pending()).toBe(0);
  });

  test("the responder is used once the script is empty and receives the recorded request", async () => {
    const seen: Array<[RecordedRequest, number]> = [];
    const server = await serve({
      script: [textTurn("scripted")],
      respond: (request, index) => {
        seen.push([request, index]);
        return textTurn(`echo: ${request.body.messages[0].content}`);
      },
    });
    const client = sdk(server);
    expect((await client.messages.create(ask)).content).toEqual([{ type: "text", text: "scripted" }]);
    expect((await client.messages.create(ask)).content).toEqual([
      { type: "text", text: "echo: What is the weather in Paris?" },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]![0]).toBe(server.requests[1]);
    expect(seen[0]![1]).toBe(1);
  });

  test("an async responder can return faults and turns", async () => {
    const server = await serve({
      respond: async (_request, index) =>
        index === 0 ? toolTurn({ name: "f", input: { n: 1 } }) : textTurn("done"),
    });
    const client = sdk(server);
    expect((await client.messages.create(ask)).stop_reason).toBe("tool_use");
    expect((await client.messages.create(ask)).stop_reason).toBe("end_turn");
  });

  test("respondWith replaces the responder and undefined removes it", async () => {
    const server = await serve();
    const client = sdk(server);
    server.respondWith(() => textTurn("one"));
    expect((await client.messages.create(ask)).content).toEqual([{ type: "text", text: "one" }]);
    server.respondWith(undefined);
    await expect(client.messages.create(ask)).rejects.toBeInstanceOf(Anthropic.BadRequestError);
  });

  test("a throwing responder answers 400 naming the error", async () => {
    const server = await serve({
      respond: () => {
        throw new Error("bad script");
      },
    });
    const error = await sdk(server)
      .messages.create(ask)
      .catch(e => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.error.error.message).toContain("bad script");
  });
});

describe("routing", () => {
  test("other paths get 404 not_found_error and are not recorded", async () => {
    const server = await serve({ script: [textTurn("unused")] });
    const response = await fetch(`${server.url}/v1/models`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    expect(server.requests).toHaveLength(0);
    expect(server.pending()).toBe(1);
  });

  test("a body that is not JSON gets 400 invalid_request_error", async () => {
    const server = await serve({ script: [textTurn("unused")] });
    const response = await post(server, "{not json");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(server.pending()).toBe(1);
  });

  test("the url is a loopback base URL", async () => {
    const server = await serve();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test("the non-streaming body is exactly Anthropic's message object", async () => {
    const server = await serve({ script: [textTurn("hi", { id: "msg_a" })] });
    const response = await post(server, ask);
    expect(response.headers.get("request-id")).toBe("req_mock_1");
    expect(await response.text()).toBe(
      JSON.stringify({
        id: "msg_a",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [{ type: "text", text: "hi" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: {
          input_tokens: Math.ceil(JSON.stringify(ask.messages).length / 4),
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      }),
    );
  });
});
