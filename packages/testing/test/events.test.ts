import { describe, expect, test } from "vitest";
import { encodeSseEvent, resolveUsage, turnToMessage, turnToStreamEvents } from "../src/events.js";
import { type MockTurn, text, textTurn, thinking, toolTurn, toolUse, turn } from "../src/index.js";
import type { RawStreamEvent } from "../src/wire.js";

// JSON.stringify of these messages is 35 characters: 9 input tokens by default.
const encoding = { id: "msg_1", requestMessages: [{ role: "user", content: "hello" }] };

function deltas(events: RawStreamEvent[], index: number): unknown[] {
  return events.flatMap(event =>
    event.type === "content_block_delta" && event.index === index ? [event.delta] : [],
  );
}

describe("turnToStreamEvents", () => {
  test("emits the API's event order for a mixed turn", () => {
    const mixed = turn([
      thinking("hmm", "sig"),
      text("hi"),
      { type: "redacted_thinking", data: "xyz" },
      toolUse("f", { a: 1 }, "toolu_1"),
    ]);
    const types = turnToStreamEvents(mixed, "claude-test", encoding).map(event =>
      event.type === "content_block_delta" ? `delta:${event.delta.type}` : event.type,
    );
    expect(types).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "delta:thinking_delta",
      "delta:signature_delta",
      "content_block_stop",
      "content_block_start",
      "delta:text_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_stop",
      "content_block_start",
      "delta:input_json_delta",
      "delta:input_json_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  test("message_start carries an empty message with output_tokens 1", () => {
    const [start] = turnToStreamEvents(
      textTurn("hi", { usage: { cache_read_input_tokens: 7 } }),
      "claude-test",
      encoding,
    );
    expect(start).toEqual({
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 9,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 7,
          output_tokens: 1,
        },
      },
    });
  });

  test("content_block_start announces empty blocks, redacted thinking whole", () => {
    const t = turn([
      thinking("a", "s"),
      text("b"),
      { type: "redacted_thinking", data: "d" },
      toolUse("f", { x: 1 }, "toolu_9"),
    ]);
    const starts = turnToStreamEvents(t, "m", encoding).flatMap(event =>
      event.type === "content_block_start" ? [event.content_block] : [],
    );
    expect(starts).toEqual([
      { type: "thinking", thinking: "", signature: "" },
      { type: "text", text: "" },
      { type: "redacted_thinking", data: "d" },
      { type: "tool_use", id: "toolu_9", name: "f", input: {} },
    ]);
  });

  test("text is split into chunkSize deltas that concatenate back", () => {
    const events = turnToStreamEvents(textTurn("abcdefghijklmnopqrstuvwxyz"), "m", {
      ...encoding,
      chunkSize: 10,
    });
    expect(deltas(events, 0)).toEqual([
      { type: "text_delta", text: "abcdefghij" },
      { type: "text_delta", text: "klmnopqrst" },
      { type: "text_delta", text: "uvwxyz" },
    ]);
  });

  test("the default chunk size is 12", () => {
    const events = turnToStreamEvents(textTurn("x".repeat(25)), "m", encoding);
    expect(deltas(events, 0)).toHaveLength(3);
  });

  test("thinking deltas are followed by one signature_delta", () => {
    const events = turnToStreamEvents(turn(thinking("0123456789", "SIG")), "m", {
      ...encoding,
      chunkSize: 4,
    });
    expect(deltas(events, 0)).toEqual([
      { type: "thinking_delta", thinking: "0123" },
      { type: "thinking_delta", thinking: "4567" },
      { type: "thinking_delta", thinking: "89" },
      { type: "signature_delta", signature: "SIG" },
    ]);
  });

  test("tool input JSON always spans at least two input_json_delta chunks", () => {
    for (const input of [{}, { a: 1 }, 7, { long: "x".repeat(40) }]) {
      const events = turnToStreamEvents(turn(toolUse("f", input)), "m", encoding);
      const parts = deltas(events, 0) as Array<{ type: string; partial_json: string }>;
      expect(parts.length).toBeGreaterThanOrEqual(2);
      expect(parts.every(part => part.type === "input_json_delta")).toBe(true);
      expect(JSON.parse(parts.map(part => part.partial_json).join(""))).toEqual(input);
    }
  });

  test("chunks never split a surrogate pair", () => {
    const events = turnToStreamEvents(textTurn("😀😀😀"), "m", { ...encoding, chunkSize: 1 });
    expect(deltas(events, 0)).toEqual(["😀", "😀", "😀"].map(text => ({ type: "text_delta", text })));
  });

  test("message_delta carries the stop reason and cumulative usage", () => {
    const events = turnToStreamEvents(
      toolTurn({ name: "f", input: {} }, { usage: { output_tokens: 42 } }),
      "m",
      encoding,
    );
    expect(events.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: {
        output_tokens: 42,
        input_tokens: 9,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    expect(events.at(-1)).toEqual({ type: "message_stop" });
  });

  test("the turn's id and model override the defaults", () => {
    const [start] = turnToStreamEvents(
      textTurn("x", { id: "msg_custom", model: "served" }),
      "requested",
      encoding,
    );
    expect(start).toMatchObject({ message: { id: "msg_custom", model: "served" } });
  });
});

describe("turnToMessage", () => {
  test("returns exactly Anthropic's message object", () => {
    const t: MockTurn = turn([text("Sunny."), toolUse("weather", { city: "Paris" }, "toolu_1")]);
    expect(turnToMessage(t, "claude-test", encoding)).toStrictEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [
        { type: "text", text: "Sunny." },
        { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: 9,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 8,
      },
    });
  });

  test("stop reason defaults to end_turn without tool use and honours an override", () => {
    expect(turnToMessage(textTurn("x"), "m", encoding).stop_reason).toBe("end_turn");
    expect(turnToMessage(textTurn("x", { stopReason: "max_tokens" }), "m", encoding).stop_reason).toBe(
      "max_tokens",
    );
  });

  test("mutating the returned message does not edit the turn", () => {
    const t = turn(toolUse("f", { nested: { a: 1 } }));
    const message = turnToMessage(t, "m", encoding);
    (message.content[0] as { input: { nested: { a: number } } }).input.nested.a = 2;
    expect(t.content[0]).toMatchObject({ input: { nested: { a: 1 } } });
  });
});

describe("resolveUsage", () => {
  test("estimates ~4 characters per token and merges explicit counts", () => {
    const t = textTurn("x".repeat(9), { usage: { cache_creation_input_tokens: 3 } });
    expect(resolveUsage(t, "12345678")).toEqual({
      input_tokens: 3, // JSON.stringify("12345678") is 10 characters
      output_tokens: 3,
      cache_creation_input_tokens: 3,
      cache_read_input_tokens: 0,
    });
    expect(resolveUsage(t).input_tokens).toBe(0);
  });
});

describe("encodeSseEvent", () => {
  test("frames an event as the API does", () => {
    expect(encodeSseEvent({ type: "ping" })).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });
});
