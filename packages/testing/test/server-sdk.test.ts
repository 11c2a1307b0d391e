// The official client must accept everything the mock sends: these tests are the proof of wire fidelity.
import { describe, expect, test } from "vitest";
import { turnToMessage, turnToStreamEvents } from "../src/events.js";
import { text, thinking, toolUse, turn } from "../src/index.js";
import { ask, parseSse, sdk, serve } from "./support.js";

const richTurn = () =>
  turn(
    [
      thinking("The user wants weather. I should call the tool.", "sig_abc"),
      text("Let me check the weather in Paris for you."),
      toolUse("get_weather", { city: "Paris", units: "metric", days: [1, 2, 3] }, "toolu_fixed"),
    ],
    { usage: { input_tokens: 120, cache_creation_input_tokens: 30, cache_read_input_tokens: 50 } },
  );

/** What the script should come out as, after any client reassembly. */
const expectedMessage = (id = "msg_mock_1") =>
  turnToMessage(richTurn(), ask.model, { id, requestMessages: ask.messages });

describe("non-streaming", () => {
  test("create returns the scripted text, tool_use and thinking with usage and id", async () => {
    const server = await serve({ script: [richTurn()] });
    const message = await sdk(server).messages.create(ask);
    expect(message).toEqual(expectedMessage());
    expect(message.usage).toMatchObject({
      input_tokens: 120,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 50,
    });
    expect(message.id).toBe("msg_mock_1");
    expect(message.stop_reason).toBe("tool_use");
  });

  test("the request is recorded with lower-cased headers and the parsed body", async () => {
    const server = await serve({ script: [turn("ok")] });
    const before = Date.now();
    await sdk(server).messages.create({ ...ask, system: "Be brief." });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({
      method: "POST",
      path: "/v1/messages",
      body: { ...ask, system: "Be brief." },
    });
    expect(request!.headers["x-api-key"]).toBe("test");
    expect(request!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.receivedAt).toBeGreaterThanOrEqual(before);
  });

  test("the response carries request-id and JSON content type", async () => {
    const server = await serve({ script: [turn("ok")] });
    const { response, request_id } = await sdk(server).messages.create(ask).withResponse();
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(request_id).toBe("req_mock_1");
  });

  test("the turn's model and stop reason override the defaults", async () => {
    const server = await serve({
      script: [turn("cut", { model: "claude-served", stopReason: "max_tokens", id: "msg_x" })],
    });
    const message = await sdk(server).messages.create(ask);
    expect(message).toMatchObject({ id: "msg_x", model: "claude-served", stop_reason: "max_tokens" });
  });

  test("message ids are unique per server", async () => {
    const server = await serve({ script: [turn("a"), turn("b")] });
    const client = sdk(server);
    const ids = [(await client.messages.create(ask)).id, (await client.messages.create(ask)).id];
    expect(ids).toEqual(["msg_mock_1", "msg_mock_2"]);
  });
});

describe("streaming", () => {
  test("the SDK's MessageStream accumulates the scripted message", async () => {
    const server = await serve({ script: [richTurn()] });
    const stream = sdk(server).messages.stream(ask);
    const final = await stream.finalMessage();
    // The helper adds its own `parsed_output` field; everything else must be the scripted message.
    const { parsed_output: _parsed, ...message } = final as typeof final & { parsed_output?: unknown };
    expect(message).toEqual(expectedMessage());
    // Tool input was parsed from several input_json_delta chunks.
    expect(final.content[2]).toEqual({
      type: "tool_use",
      id: "toolu_fixed",
      name: "get_weather",
      input: { city: "Paris", units: "metric", days: [1, 2, 3] },
    });
    expect(final.content[0]).toEqual({
      type: "thinking",
      thinking: "The user wants weather. I should call the tool.",
      signature: "sig_abc",
    });
    expect(final.usage).toMatchObject({
      input_tokens: 120,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 50,
    });
    expect(server.requests[0]!.body.stream).toBe(true);
  });

  test("raw create({ stream: true }) yields the scripted events and reassembles to the same message", async () => {
    const server = await serve({ script: [richTurn()] });
    const stream = await sdk(server).messages.create({ ...ask, stream: true });
    const events: unknown[] = [];
    for await (const event of stream) events.push(event);
    // The SDK drops `ping` events; every other event arrives exactly as scripted.
    const scripted = turnToStreamEvents(richTurn(), ask.model, {
      id: "msg_mock_1",
      requestMessages: ask.messages,
    });
    expect(events).toEqual(scripted.filter(event => event.type !== "ping"));

    const toolJsonChunks = events.filter(
      (event: any) => event.type === "content_block_delta" && event.delta.type === "input_json_delta",
    ) as Array<{ delta: { partial_json: string } }>;
    expect(toolJsonChunks.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(toolJsonChunks.map(event => event.delta.partial_json).join(""))).toEqual({
      city: "Paris",
      units: "metric",
      days: [1, 2, 3],
    });
  });

  test("the wire carries exactly one ping, right after message_start", async () => {
    const server = await serve({ script: [richTurn()] });
    const response = await sdk(server)
      .messages.create({ ...ask, stream: true })
      .asResponse();
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("request-id")).toBe("req_mock_1");
    const frames = parseSse(await response.text());
    expect(frames.filter(frame => frame.event === "ping")).toHaveLength(1);
    expect(frames.map(frame => frame.event).slice(0, 2)).toEqual(["message_start", "ping"]);
    for (const frame of frames) expect(frame.data.type).toBe(frame.event);
  });

  test("chunkSize controls the number of deltas the SDK receives", async () => {
    const server = await serve({ script: [turn("abcdefghij")], chunkSize: 3 });
    const stream = sdk(server).messages.stream(ask);
    const pieces: string[] = [];
    stream.on("text", delta => pieces.push(delta));
    await stream.done();
    expect(pieces).toEqual(["abc", "def", "ghi", "j"]);
  });
});
