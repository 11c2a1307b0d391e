import { text, textTurn, thinking, toolTurn, turn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  ConcurrentQueryError,
  createBareAgent,
  MaxTurnsError,
  type SDKResultMessage,
  tool,
} from "../src/index.js";
import { collect, mockServer, plainMessages, shape } from "./helpers.js";

const add = tool("add", "Add two numbers", z.object({ a: z.number(), b: z.number() }), async ({ a, b }) => ({
  content: String(a + b),
}));

describe("agent loop (C2, C4, C24, C28, C29)", () => {
  it("yields system, stream_events, assistant, user and one result, in that order, for a tool-using query", async () => {
    const server = await mockServer([
      toolTurn({ name: "add", input: { a: 2, b: 3 } }),
      textTurn("The sum is 5."),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "claude-test", tools: [add] });
    const messages = await collect(agent.query("What is 2+3?"));
    expect(shape(messages)).toEqual([
      "system",
      "stream_event*",
      "assistant",
      "user",
      "stream_event*",
      "assistant",
      "result",
    ]);
    const init = messages[0]!;
    expect(init).toMatchObject({
      type: "system",
      subtype: "init",
      model: "claude-test",
      tools: ["add"],
      session_id: agent.sessionId,
    });
    const user = messages.find(m => m.type === "user")!;
    expect(user).toMatchObject({
      message: { role: "user", content: [{ type: "tool_result", content: "5" }] },
    });
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({
      subtype: "success",
      is_error: false,
      result: "The sum is 5.",
      num_turns: 2,
      stop_reason: "end_turn",
    });
  });

  it("never echoes the prompt as a user message", async () => {
    const server = await mockServer([textTurn("hi")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const messages = await collect(agent.query("Say hello"));
    expect(messages.filter(m => m.type === "user")).toEqual([]);
  });

  it("sends the tool's JSON Schema, the system prompt and the history the model must see", async () => {
    const server = await mockServer([
      toolTurn({ name: "add", input: { a: 1, b: 1 }, id: "toolu_1" }),
      textTurn("2"),
    ]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      systemPrompt: "Be brief.",
      tools: [add],
      maxTokens: 1000,
    });
    await agent.prompt("1+1?");
    const [first, second] = server.requests.map(r => r.body);
    // With prompt caching on (the default) the system prompt goes out as a text block and the last block of the
    // newest message carries a breakpoint; the stored history has none.
    const mark = { type: "ephemeral" };
    expect(first).toMatchObject({
      model: "m",
      max_tokens: 1000,
      system: [{ type: "text", text: "Be brief.", cache_control: mark }],
      stream: true,
    });
    expect(first.tools).toEqual([
      {
        name: "add",
        description: "Add two numbers",
        input_schema: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
        },
      },
    ]);
    expect(first.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "1+1?", cache_control: mark }] },
    ]);
    expect(second.messages).toEqual([
      { role: "user", content: "1+1?" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "add", input: { a: 1, b: 1 } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "2", cache_control: mark }],
      },
    ]);
  });

  it("keeps thinking blocks with their signatures and sends them back unchanged", async () => {
    const server = await mockServer([
      turn([
        thinking("Let me add.", "sig-abc"),
        text("Calling."),
        { type: "tool_use", id: "toolu_t", name: "add", input: { a: 1, b: 2 } },
      ]),
      textTurn("3"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [add] });
    await agent.prompt("1+2?");
    expect(server.requests[1]!.body.messages[1].content[0]).toEqual({
      type: "thinking",
      thinking: "Let me add.",
      signature: "sig-abc",
    });
  });

  it("stream: false sends non-streaming requests and yields no stream_event", async () => {
    const server = await mockServer([toolTurn({ name: "add", input: { a: 2, b: 2 } }), textTurn("4")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [add] });
    const messages = await collect(agent.query("2+2", { stream: false }));
    expect(shape(messages)).toEqual(["system", "assistant", "user", "assistant", "result"]);
    expect(server.requests.map(r => r.body.stream)).toEqual([undefined, undefined]);
    const viaPrompt = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    server.enqueue(textTurn("ok"));
    expect((await viaPrompt.prompt("x", { stream: false })).result).toBe("ok");
  });

  it("sums usage over every request, including cache fields, and reports the last stop_reason (streaming and not)", async () => {
    for (const stream of [true, false]) {
      const server = await mockServer([
        toolTurn(
          { name: "add", input: { a: 1, b: 1 } },
          {
            usage: {
              input_tokens: 100,
              output_tokens: 10,
              cache_read_input_tokens: 40,
              cache_creation_input_tokens: 5,
            },
          },
        ),
        textTurn("2", {
          usage: {
            input_tokens: 120,
            output_tokens: 7,
            cache_read_input_tokens: 60,
            cache_creation_input_tokens: 0,
          },
        }),
      ]);
      const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [add] });
      const result = await agent.prompt("1+1", { stream });
      expect(result.usage).toEqual({
        input_tokens: 220,
        output_tokens: 17,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 5,
      });
      expect(result.stop_reason).toBe("end_turn");
    }
  });

  it("puts the provider response id and the serving model on assistant messages (streaming and not)", async () => {
    for (const stream of [true, false]) {
      const server = await mockServer([textTurn("hi", { id: "msg_42", model: "deepseek-v4-flash-0801" })]);
      const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "deepseek-v4-flash" });
      const messages = await collect(agent.query("hi", { stream }));
      const assistant = messages.find(m => m.type === "assistant");
      expect(assistant).toMatchObject({
        message: { providerResponseId: "msg_42", model: "deepseek-v4-flash-0801" },
      });
      // Provider metadata is ours; it is not sent back to the provider on later turns.
      server.enqueue(textTurn("again"));
      await agent.prompt("again", { stream });
      expect(server.requests[1]!.body.messages[1]).toEqual({
        role: "assistant",
        content: [{ type: "text", text: "hi" }],
      });
    }
  });

  it("C9: passes explicit deepseek-* model names through to the provider unchanged (streaming and not)", async () => {
    const server = await mockServer([textTurn("one"), textTurn("two")]);
    const flash = createBareAgent({ apiKey: "k", baseURL: server.url, model: "deepseek-v4-flash" });
    const pro = createBareAgent({ apiKey: "k", baseURL: server.url, model: "deepseek-v4-pro" });
    await flash.prompt("hi");
    await pro.prompt("hi", { stream: false });
    expect(server.requests.map(r => r.body.model)).toEqual(["deepseek-v4-flash", "deepseek-v4-pro"]);
  });

  it("remembers earlier queries of the same agent (multi-turn session)", async () => {
    const server = await mockServer([textTurn("Nice to meet you, Ada."), textTurn("Your name is Ada.")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    await agent.prompt("My name is Ada.");
    const result = await agent.prompt("What is my name?");
    expect(result.result).toBe("Your name is Ada.");
    expect(plainMessages(server.requests[1]!.body.messages)).toEqual([
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: [{ type: "text", text: "Nice to meet you, Ada." }] },
      { role: "user", content: "What is my name?" },
    ]);
    const history = await agent.getHistory();
    history.length = 0;
    expect(await agent.getHistory()).toHaveLength(4);
  });

  it("rejects a second query while one is running with ConcurrentQueryError, then accepts one after it ends", async () => {
    const server = await mockServer([textTurn("first", { delayMs: 50 }), textTurn("third")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const first = agent.prompt("one");
    await expect(agent.prompt("two")).rejects.toBeInstanceOf(ConcurrentQueryError);
    await expect(agent.prompt("two")).rejects.toMatchObject({ code: "concurrent_query" });
    expect((await first).result).toBe("first");
    expect((await agent.prompt("three")).result).toBe("third");
    expect(server.requests).toHaveLength(2);
  });

  it("releases the agent when the consumer stops iterating early", async () => {
    const server = await mockServer([
      textTurn("a long answer that streams in many chunks"),
      textTurn("next"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    for await (const message of agent.query("go")) if (message.type === "stream_event") break;
    expect((await agent.prompt("again")).result).toBe("next");
  });

  it("ends with error_max_turns and a MaxTurnsError when the model keeps calling tools", async () => {
    const server = await mockServer([
      toolTurn({ name: "add", input: { a: 1, b: 1 } }),
      toolTurn({ name: "add", input: { a: 1, b: 1 } }),
      toolTurn({ name: "add", input: { a: 1, b: 1 } }),
    ]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [add],
      maxTurns: 5,
    });
    const result = await agent.prompt("loop", { maxTurns: 2 });
    expect(result).toMatchObject({ subtype: "error_max_turns", is_error: true, num_turns: 2 });
    expect(result.error).toBeInstanceOf(MaxTurnsError);
    expect(result.error?.message).toContain("maxTurns (2)");
    // The history stays well-formed: the last tool_use is answered.
    const history = await agent.getHistory();
    expect(history.at(-1)).toMatchObject({ role: "user", content: [{ type: "tool_result" }] });
  });
});

describe("back-pressure (C3)", () => {
  it("a slow consumer sees every event in order, none dropped", async () => {
    const long = "word ".repeat(200);
    const server = await mockServer([textTurn(long, { chunkDelayMs: 0 })]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    let streamed = "";
    let lastIndexSeen = -1;
    const types: string[] = [];
    let produced = 0;
    for await (const message of agent.query("talk")) {
      produced += 1;
      if (message.type === "stream_event") {
        types.push(message.event.type);
        const event = message.event as { type: string; index?: number; delta?: { text?: string } };
        if (event.index !== undefined) {
          expect(event.index).toBeGreaterThanOrEqual(lastIndexSeen);
          lastIndexSeen = event.index;
        }
        if (event.type === "content_block_delta" && event.delta?.text) streamed += event.delta.text;
      }
      // A slow consumer: the loop must wait for it rather than run ahead or drop events.
      await new Promise(resolve => setTimeout(resolve, 2));
    }
    expect(streamed).toBe(long);
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
    expect(types.filter(t => t === "content_block_delta").length).toBeGreaterThan(50);
    expect(produced).toBe(types.length + 3);
  });

  it("produces the next message only when the consumer asks for it", async () => {
    const server = await mockServer([textTurn("abc def ghi jkl mno pqr")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const iterator = agent.query("x");
    const first = await iterator.next();
    expect(first.value).toMatchObject({ type: "system" });
    // Nothing was requested from the model before the consumer pulled past the init message.
    expect(server.requests).toHaveLength(0);
    const rest = await collect({ [Symbol.asyncIterator]: () => iterator });
    expect(rest.at(-1)).toMatchObject({ type: "result", result: "abc def ghi jkl mno pqr" });
  });
});
