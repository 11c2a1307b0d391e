import { describe, expect, test } from "vitest";
import { turnToMessage } from "../src/events.js";
import {
  createScriptedModelClient,
  dropConnection,
  hang,
  httpError,
  type MockTurn,
  rateLimited,
  ScriptedModelError,
  type ScriptedModelRequest,
  streamError,
  text,
  textTurn,
  thinking,
  toolUse,
  turn,
} from "../src/index.js";
import type { RawStreamEvent } from "../src/wire.js";
import { ask, parseSse, post, serve } from "./support.js";

function request(overrides: Partial<ScriptedModelRequest> = {}): ScriptedModelRequest {
  return {
    model: ask.model,
    maxTokens: ask.max_tokens,
    messages: structuredClone(ask.messages),
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

const richTurn = (): MockTurn =>
  turn(
    [
      thinking("plan", "sig_1"),
      text("Checking the weather."),
      toolUse("weather", { city: "Paris" }, "toolu_1"),
    ],
    {
      usage: { cache_read_input_tokens: 5 },
    },
  );

async function collect(
  events: AsyncIterable<RawStreamEvent>,
): Promise<{ events: RawStreamEvent[]; error?: any }> {
  const seen: RawStreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { events: seen };
  } catch (error) {
    return { events: seen, error };
  }
}

describe("turns", () => {
  test("create returns the message the server would send", async () => {
    const client = createScriptedModelClient({ script: [richTurn()] });
    const response = await client.create(request());
    const wire = turnToMessage(richTurn(), ask.model, { id: "msg_mock_1", requestMessages: ask.messages });
    expect(response).toEqual({
      message: {
        role: "assistant",
        content: wire.content,
        providerResponseId: "msg_mock_1",
        model: ask.model,
      },
      stopReason: "tool_use",
      usage: wire.usage,
    });
    expect(response.usage?.cache_read_input_tokens).toBe(5);
  });

  test("stream yields exactly the events the server puts on the wire", async () => {
    const client = createScriptedModelClient({ script: [richTurn()], chunkSize: 5 });
    const server = await serve({ script: [richTurn()], chunkSize: 5 });
    const wire = parseSse(await (await post(server, { ...ask, stream: true })).text()).map(
      frame => frame.data,
    );
    const { events, error } = await collect(client.stream(request()));
    expect(error).toBeUndefined();
    expect(events).toEqual(wire);
  });

  test("message ids are unique per client", async () => {
    const client = createScriptedModelClient({ script: [textTurn("a"), textTurn("b")] });
    const first = await client.create(request());
    const { events } = await collect(client.stream(request()));
    expect(first.message.providerResponseId).toBe("msg_mock_1");
    expect(events[0]).toMatchObject({ type: "message_start", message: { id: "msg_mock_2" } });
  });

  test("requests are snapshots unaffected by later mutation", async () => {
    const client = createScriptedModelClient({ script: [textTurn("a")] });
    const history: ScriptedModelRequest["messages"] = [
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ];
    const call = request({ messages: history, system: "sys" });
    await client.create(call);
    history.push({ role: "assistant", content: "later" });
    (history[0]!.content as Array<{ text: string }>)[0]!.text = "edited";
    expect(client.requests).toEqual([
      {
        model: ask.model,
        maxTokens: ask.max_tokens,
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        tools: [],
        system: "sys",
      },
    ]);
    expect(client.requests[0]).not.toHaveProperty("signal");
  });

  test("stream records the request at call time, before iteration", () => {
    const client = createScriptedModelClient({ script: [textTurn("a")] });
    client.stream(request());
    expect(client.requests).toHaveLength(1);
    expect(client.pending()).toBe(0);
  });

  test("the responder is used once the script is empty and receives the snapshot and index", async () => {
    const calls: Array<[unknown, number]> = [];
    const client = createScriptedModelClient({
      script: [textTurn("first")],
      respond: (snapshot, index) => {
        calls.push([snapshot, index]);
        return textTurn(`reply ${index}`);
      },
    });
    await client.create(request());
    const second = await client.create(request());
    expect(second.message.content).toEqual([{ type: "text", text: "reply 1" }]);
    expect(calls).toEqual([[client.requests[1], 1]]);
  });

  test("enqueue appends and pending counts", async () => {
    const client = createScriptedModelClient();
    client.enqueue(textTurn("a"), textTurn("b"));
    expect(client.pending()).toBe(2);
    await client.create(request());
    expect(client.pending()).toBe(1);
  });

  test("chunkDelayMs spaces the streamed events", async () => {
    const client = createScriptedModelClient({
      script: [textTurn("abcdef", { chunkDelayMs: 15 })],
      chunkSize: 2,
    });
    const started = Date.now();
    const { events } = await collect(client.stream(request()));
    expect(events.map(event => event.type)[0]).toBe("message_start");
    expect(events.at(-1)?.type).toBe("message_stop");
    // 9 events → 8 gaps of 15 ms; require only a fraction.
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
  });
});

describe("faults", () => {
  test("an exhausted script throws ScriptedModelError 400", async () => {
    const client = createScriptedModelClient();
    const error = await client.create(request()).catch(e => e);
    expect(error).toBeInstanceOf(ScriptedModelError);
    expect(error).toMatchObject({ status: 400, errorType: "invalid_request_error" });
    expect(error.message).toBe(
      "400 invalid_request_error: scripted client: no scripted reply for request #1 (script exhausted)",
    );
    const streamed = await collect(client.stream(request()));
    expect(streamed.error.message).toContain("request #2 (script exhausted)");
  });

  test("http_error throws ScriptedModelError with status, type and headers", async () => {
    const client = createScriptedModelClient({
      script: [rateLimited(1), httpError(500, "api_error", "boom")],
    });
    const error = await client.create(request()).catch(e => e);
    expect(error).toBeInstanceOf(ScriptedModelError);
    expect(error).toMatchObject({
      name: "ScriptedModelError",
      status: 429,
      errorType: "rate_limit_error",
      headers: { "retry-after": "1" },
    });
    expect(error.message).toMatch(/^429 rate_limit_error: /);
    const streamed = await collect(client.stream(request()));
    expect(streamed.events).toEqual([]);
    expect(streamed.error).toMatchObject({
      status: 500,
      errorType: "api_error",
      message: "500 api_error: boom",
    });
  });

  test("stream_error yields the first events then throws ScriptedModelError without status", async () => {
    const client = createScriptedModelClient({ script: [streamError(textTurn("hello"), 3)] });
    const { events, error } = await collect(client.stream(request()));
    expect(events.map(event => event.type)).toEqual(["message_start", "ping", "content_block_start"]);
    expect(error).toBeInstanceOf(ScriptedModelError);
    expect(error).toMatchObject({
      status: undefined,
      errorType: "overloaded_error",
      message: "overloaded_error: Overloaded",
    });
  });

  test("stream_error in create throws the matching HTTP error", async () => {
    const client = createScriptedModelClient({ script: [streamError(textTurn("hello"), 3)] });
    await expect(client.create(request())).rejects.toMatchObject({
      status: 529,
      errorType: "overloaded_error",
    });
  });

  test("drop_connection yields the first events then throws a connection error", async () => {
    const client = createScriptedModelClient({ script: [dropConnection(textTurn("hello"), 2)] });
    const { events, error } = await collect(client.stream(request()));
    expect(events).toHaveLength(2);
    expect(error).not.toBeInstanceOf(ScriptedModelError);
    expect(error.message).toBe("mock: connection dropped mid-stream");
  });

  test("hang never settles until the signal aborts, then rejects with its reason", async () => {
    const client = createScriptedModelClient({ script: [hang(), hang()] });
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    const pending = client.create(request({ signal: controller.signal })).catch(e => e);
    const streaming = collect(client.stream(request({ signal: controller.signal })));
    const raced = await Promise.race([
      pending,
      new Promise(resolve => setTimeout(() => resolve("still hanging"), 30)),
    ]);
    expect(raced).toBe("still hanging");
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect((await streaming).error).toBe(reason);
  });

  test("abort without a reason rejects with an AbortError", async () => {
    const client = createScriptedModelClient({ script: [hang()] });
    const controller = new AbortController();
    const pending = client.create(request({ signal: controller.signal })).catch(e => e);
    controller.abort();
    expect((await pending).name).toBe("AbortError");
  });

  test("create rejects promptly when aborted during delayMs", async () => {
    const client = createScriptedModelClient({ script: [textTurn("late", { delayMs: 60_000 })] });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error("stop")), 20);
    await expect(client.create(request({ signal: controller.signal }))).rejects.toThrow("stop");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test("stream rejects promptly when aborted during chunkDelayMs", async () => {
    const client = createScriptedModelClient({
      script: [textTurn("x".repeat(50), { chunkDelayMs: 60_000 })],
    });
    const controller = new AbortController();
    const iterator = client.stream(request({ signal: controller.signal }))[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "message_start" });
    const next = iterator.next();
    controller.abort(new Error("stop"));
    await expect(next).rejects.toThrow("stop");
  });
});
