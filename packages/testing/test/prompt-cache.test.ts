import { describe, expect, it } from "vitest";
import {
  cacheBreakpoints,
  createScriptedModelClient,
  defaultMinCacheableTokens,
  estimateTokens,
  httpError,
  PromptCacheRequestError,
  PromptCacheSimulator,
  promptBlocks,
  textTurn,
} from "../src/index.js";
import { sdk, serve } from "./support.js";

const MARK = { type: "ephemeral" } as const;
const HOUR = { type: "ephemeral", ttl: "1h" } as const;
/** About 2,000 estimated tokens: above every model's minimum cacheable length but Opus 4.5+/Haiku 4.5's. */
const LONG = "You are a careful assistant. ".repeat(280);

type Block = { type: "text"; text: string; cache_control?: unknown };
const text = (value: string, cache_control?: unknown): Block =>
  cache_control ? { type: "text", text: value, cache_control } : { type: "text", text: value };

/** A request body with a long system prompt (marked) and the given messages. */
function request(messages: unknown[], options: { system?: string; model?: string; mark?: boolean } = {}) {
  return {
    model: options.model ?? "claude-sonnet-4-5",
    max_tokens: 64,
    system: [text(options.system ?? LONG, options.mark === false ? undefined : MARK)],
    messages,
  };
}

/** A conversation of `turns` user/assistant pairs, the last user message marked. */
function conversation(turns: number, marked = true): unknown[] {
  const messages: unknown[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: [text(`question ${i}`)] });
    messages.push({ role: "assistant", content: [text(`answer ${i}`)] });
  }
  messages.push({ role: "user", content: [text(`question ${turns}`, marked ? MARK : undefined)] });
  return messages;
}

function clock(start = 1_000_000) {
  const state = { now: start };
  return { state, now: () => state.now };
}

describe("prompt-cache simulation: blocks and token estimate", () => {
  it("flattens tools → system → messages, string content as one text block, markers stripped from content", () => {
    const body = {
      tools: [{ name: "t", description: "d", input_schema: { type: "object" }, cache_control: MARK }],
      system: "Be brief.",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "a" },
            { type: "tool_use", id: "x", name: "t", input: {} },
          ],
        },
      ],
    };
    const blocks = promptBlocks(body);
    expect(blocks.map(block => block.location)).toEqual([
      "tools.0",
      "system",
      "messages.0.content",
      "messages.1.content.0",
      "messages.1.content.1",
    ]);
    expect(blocks[0]!.content).toEqual({ name: "t", description: "d", input_schema: { type: "object" } });
    expect(blocks[2]!.content).toEqual({ type: "text", text: "hi" });
    expect(blocks[2]!.tokens).toBe(estimateTokens({ type: "text", text: "hi" }));
    expect(cacheBreakpoints(body)).toEqual(["tools.0"]);
  });

  it("estimates ceil(JSON characters / 4)", () => {
    expect(estimateTokens("abcdef")).toBe(2); // "\"abcdef\"" is 8 characters
    expect(estimateTokens({ a: 1 })).toBe(2); // {"a":1} is 7 characters
  });
});

describe("prompt-cache simulation: hits and misses", () => {
  it("the first request writes the prefix up to its breakpoint, an identical prefix is then read back", () => {
    const cache = new PromptCacheSimulator();
    const first = cache.process(request([{ role: "user", content: "hello" }]));
    const systemTokens = estimateTokens(text(LONG));
    expect(first.hit).toBeUndefined();
    expect(first.usage.cache_creation_input_tokens).toBe(systemTokens);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.input_tokens).toBe(first.totalTokens - systemTokens);
    expect(first.written).toEqual(["system.0"]);

    const second = cache.process(request([{ role: "user", content: "a different question" }]));
    expect(second.hit).toEqual({ location: "system.0", position: 0, tokens: systemTokens });
    expect(second.usage.cache_read_input_tokens).toBe(systemTokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(second.usage.input_tokens + second.usage.cache_read_input_tokens).toBe(second.totalTokens);
  });

  it("any change before the breakpoint is a miss: one character of the system prompt, or a tool", () => {
    const cache = new PromptCacheSimulator();
    cache.process(request([{ role: "user", content: "q" }]));
    const changed = cache.process(request([{ role: "user", content: "q" }], { system: `${LONG}!` }));
    expect(changed.hit).toBeUndefined();
    expect(changed.usage.cache_creation_input_tokens).toBeGreaterThan(0);

    const withTool = {
      ...request([{ role: "user", content: "q" }]),
      tools: [{ name: "t", description: "d", input_schema: { type: "object" } }],
    };
    expect(cache.process(withTool).hit).toBeUndefined();
  });

  it("a changed message keeps the system prefix (its own breakpoint) but misses the conversation", () => {
    const cache = new PromptCacheSimulator({ minCacheableTokens: 1 });
    cache.process(request(conversation(2)));
    const same = cache.process(request(conversation(2)));
    expect(same.hit?.location).toBe("messages.4.content.0");

    const edited = conversation(2);
    (edited[0] as { content: Block[] }).content[0]!.text = "question 0, edited";
    const outcome = cache.process(request(edited));
    expect(outcome.hit?.location).toBe("system.0");
  });

  it("string content and a single text block are the same prompt (the string is shorthand for the block)", () => {
    const cache = new PromptCacheSimulator({ minCacheableTokens: 1 });
    const asString = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [text("hello")] },
      { role: "user", content: [text("more", MARK)] },
    ];
    cache.process(request(asString, { mark: false }));
    const asBlock = [{ role: "user", content: [text("hi")] }, ...asString.slice(1)];
    expect(cache.process(request(asBlock, { mark: false })).hit?.location).toBe("messages.2.content.0");
  });

  it("the model, thinking and tool_choice are part of the key for what follows the system prompt", () => {
    const cache = new PromptCacheSimulator({ minCacheableTokens: 1 });
    cache.process(request(conversation(1)));
    expect(cache.process({ ...request(conversation(1)), model: "claude-opus-4-1" }).hit).toBeUndefined();
    const thinking = cache.process({ ...request(conversation(1)), thinking: { type: "adaptive" } });
    expect(thinking.hit?.location).toBe("system.0");
  });
});

describe("prompt-cache simulation: the 20-block look-back window", () => {
  /** A conversation whose last user message has `extra` blocks after the previously marked one. */
  function grown(extra: number, keepEarlierMark: boolean) {
    const messages: unknown[] = [
      { role: "user", content: [text("start", keepEarlierMark ? MARK : undefined)] },
    ];
    const answer: Block[] = [];
    for (let i = 0; i < extra - 1; i++) answer.push(text(`part ${i}`));
    messages.push({ role: "assistant", content: answer });
    messages.push({ role: "user", content: [text("next", MARK)] });
    return messages;
  }

  it("finds the previous entry when the new breakpoint is 19 blocks later, not when it is 20", () => {
    const first = [{ role: "user", content: [text("start", MARK)] }];
    const near = new PromptCacheSimulator({ minCacheableTokens: 1 });
    near.process(request(first, { mark: false }));
    // 18 assistant blocks + 1 user block: the new breakpoint is 19 blocks after the old one.
    expect(near.process(request(grown(19, false), { mark: false })).hit?.location).toBe(
      "messages.0.content.0",
    );

    const far = new PromptCacheSimulator({ minCacheableTokens: 1 });
    far.process(request(first, { mark: false }));
    const outcome = far.process(request(grown(20, false), { mark: false }));
    expect(outcome.hit).toBeUndefined();
    expect(outcome.usage.cache_read_input_tokens).toBe(0);
  });

  it("a breakpoint kept on the earlier block finds it again", () => {
    const cache = new PromptCacheSimulator({ minCacheableTokens: 1 });
    cache.process(request([{ role: "user", content: [text("start", MARK)] }], { mark: false }));
    const outcome = cache.process(request(grown(30, true), { mark: false }));
    expect(outcome.hit?.location).toBe("messages.0.content.0");
    expect(outcome.written).toEqual(["messages.2.content.0"]);
  });

  it("the window size is configurable", () => {
    const cache = new PromptCacheSimulator({ minCacheableTokens: 1, lookbackBlocks: 5 });
    cache.process(request([{ role: "user", content: [text("start", MARK)] }], { mark: false }));
    expect(cache.process(request(grown(6, false), { mark: false })).hit).toBeUndefined();
  });
});

describe("prompt-cache simulation: lifetimes", () => {
  it("a 5-minute entry expires 5 minutes after its last use; every hit refreshes it", () => {
    const time = clock();
    const cache = new PromptCacheSimulator({ now: time.now });
    const body = request([{ role: "user", content: "q" }]);
    cache.process(body);
    time.state.now += 4 * 60_000 + 59_000;
    expect(cache.process(body).hit).toBeDefined(); // refreshed here
    time.state.now += 4 * 60_000;
    expect(cache.process(body).hit).toBeDefined();
    time.state.now += 5 * 60_000;
    expect(cache.size).toBe(0);
    const expired = cache.process(body);
    expect(expired.hit).toBeUndefined();
    expect(expired.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it("a 1-hour entry outlives 5 minutes and is billed as a 1-hour write", () => {
    const time = clock();
    const cache = new PromptCacheSimulator({ now: time.now });
    const body = { ...request([{ role: "user", content: "q" }]), system: [text(LONG, HOUR)] };
    const first = cache.process(body);
    expect(first.usage.cache_creation).toEqual({
      ephemeral_5m_input_tokens: 0,
      ephemeral_1h_input_tokens: first.usage.cache_creation_input_tokens,
    });
    time.state.now += 59 * 60_000;
    expect(cache.process(body).hit).toBeDefined();
    time.state.now += 60 * 60_000;
    expect(cache.process(body).hit).toBeUndefined();
  });

  it("mixed lifetimes: 1h writes up to the last 1h breakpoint, 5m writes after it", () => {
    const cache = new PromptCacheSimulator({ minCacheableTokens: 1 });
    const body = {
      ...request([{ role: "user", content: [text("question", MARK)] }]),
      system: [text(LONG, HOUR)],
    };
    const outcome = cache.process(body);
    const systemTokens = estimateTokens(text(LONG));
    expect(outcome.usage.cache_creation).toEqual({
      ephemeral_1h_input_tokens: systemTokens,
      ephemeral_5m_input_tokens: outcome.totalTokens - systemTokens,
    });
  });

  it("a 1h breakpoint after a 5m one is refused", () => {
    const cache = new PromptCacheSimulator();
    const body = request([{ role: "user", content: [text("question", HOUR)] }]);
    expect(() => cache.process(body)).toThrow(PromptCacheRequestError);
  });
});

describe("prompt-cache simulation: minimum cacheable length", () => {
  it("a prefix shorter than the model's minimum is neither written nor read", () => {
    const cache = new PromptCacheSimulator();
    const short = request([{ role: "user", content: "q" }], { system: "Be brief." });
    const first = cache.process(short);
    expect(first.written).toEqual([]);
    expect(first.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(first.usage.input_tokens).toBe(first.totalTokens);
    expect(cache.process(short).hit).toBeUndefined();
  });

  it("uses the documented minimum per model; the option overrides it", () => {
    expect(defaultMinCacheableTokens("claude-sonnet-4-5")).toBe(1024);
    expect(defaultMinCacheableTokens("claude-opus-4-1-20250805")).toBe(1024);
    expect(defaultMinCacheableTokens("claude-sonnet-4-6")).toBe(2048);
    expect(defaultMinCacheableTokens("claude-3-5-haiku-20241022")).toBe(2048);
    expect(defaultMinCacheableTokens("claude-opus-4-5")).toBe(4096);
    expect(defaultMinCacheableTokens("claude-haiku-4-5")).toBe(4096);
    expect(defaultMinCacheableTokens("deepseek-v4-flash")).toBe(1024);

    // LONG is about 2,000 tokens: cached for Sonnet 4.5, not for Haiku 4.5.
    const cache = new PromptCacheSimulator();
    const body = request([{ role: "user", content: "q" }]);
    expect(cache.process(body).written).toEqual(["system.0"]);
    expect(cache.process({ ...body, model: "claude-haiku-4-5" }).written).toEqual([]);
    const custom = new PromptCacheSimulator({ minCacheableTokens: 5_000 });
    expect(custom.process(body).written).toEqual([]);
  });
});

describe("prompt-cache simulation: requests the API refuses", () => {
  it("more than four breakpoints", () => {
    const cache = new PromptCacheSimulator();
    const messages = [1, 2, 3, 4].map(i => ({
      role: i % 2 ? "user" : "assistant",
      content: [text(`m${i}`, MARK)],
    }));
    expect(() => cache.process(request(messages))).toThrow(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
  });

  it("a marker on a thinking block or an empty text block, an unknown type or ttl", () => {
    const cache = new PromptCacheSimulator();
    const thinking = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "t", signature: "s", cache_control: MARK }],
      },
      { role: "user", content: "r" },
    ];
    expect(() => cache.process(request(thinking))).toThrow(
      "messages.1.content.0.cache_control: Extra inputs are not permitted",
    );
    expect(() => cache.process(request([{ role: "user", content: [text("", MARK)] }]))).toThrow(
      "messages.0.content.0.text: cache_control cannot be set for empty text blocks",
    );
    expect(() =>
      cache.process(request([{ role: "user", content: [text("q", { type: "persistent" })] }])),
    ).toThrow("cache_control.type");
    expect(() =>
      cache.process(request([{ role: "user", content: [text("q", { type: "ephemeral", ttl: "2h" })] }])),
    ).toThrow("cache_control.ttl");
  });
});

describe("prompt-cache simulation in the mock server", () => {
  it("is off by default: usage keeps the plain estimate and markers are not checked", async () => {
    const server = await serve({ script: [textTurn("ok")] });
    const body = request([1, 2, 3, 4, 5].map(i => ({ role: "user", content: [text(`m${i}`, MARK)] })));
    const response = await sdk(server).messages.create(body as never);
    expect(response.usage.input_tokens).toBe(Math.ceil(JSON.stringify(body.messages).length / 4));
    expect(response.usage.cache_read_input_tokens).toBe(0);
    expect(server.requests[0]!.promptCache).toBeUndefined();
    expect(server.promptCache).toBeUndefined();
  });

  it("reports writes then reads over real HTTP, streaming and not, and records each outcome", async () => {
    const server = await serve({ promptCache: true, script: [textTurn("one"), textTurn("two")] });
    const client = sdk(server);
    const first = await client.messages.create(request([{ role: "user", content: "q1" }]) as never);
    const stream = client.messages.stream(request([{ role: "user", content: "q2" }]) as never);
    const second = await stream.finalMessage();
    const systemTokens = estimateTokens(text(LONG));
    expect(first.usage).toMatchObject({
      cache_creation_input_tokens: systemTokens,
      cache_read_input_tokens: 0,
    });
    expect(second.usage).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: systemTokens,
    });
    const outcome = server.requests[1]!.promptCache!;
    expect(second.usage.input_tokens).toBe(outcome.usage.input_tokens);
    expect(outcome.totalTokens).toBe(
      second.usage.input_tokens +
        (second.usage.cache_read_input_tokens ?? 0) +
        (second.usage.cache_creation_input_tokens ?? 0),
    );
    expect(outcome.breakpoints).toEqual([
      { location: "system.0", position: 0, prefixTokens: systemTokens, ttl: "5m" },
    ]);
  });

  it("a turn's own usage fields still win over the simulation", async () => {
    const server = await serve({
      promptCache: true,
      script: [textTurn("ok", { usage: { input_tokens: 7, cache_read_input_tokens: 3 } })],
    });
    const response = await sdk(server).messages.create(request([{ role: "user", content: "q" }]) as never);
    expect(response.usage).toMatchObject({
      input_tokens: 7,
      cache_read_input_tokens: 3,
      cache_creation_input_tokens: server.requests[0]!.promptCache!.usage.cache_creation_input_tokens,
    });
  });

  it("refuses invalid markers with 400 invalid_request_error, without using up the script", async () => {
    const server = await serve({ promptCache: true, script: [textTurn("ok")] });
    const messages = [1, 2, 3, 4].map(i => ({
      role: i % 2 ? "user" : "assistant",
      content: [text(`m${i}`, MARK)],
    }));
    const failure = await sdk(server)
      .messages.create(request(messages) as never)
      .catch(error => error);
    expect(failure.status).toBe(400);
    expect(failure.error.error).toEqual({
      type: "invalid_request_error",
      message: "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    });
    expect(server.pending()).toBe(1);
  });

  it("a request answered with an error writes nothing (the entry exists once a response begins)", async () => {
    const server = await serve({
      promptCache: true,
      script: [httpError(500, "api_error", "boom"), textTurn("ok")],
    });
    const client = sdk(server);
    await client.messages.create(request([{ role: "user", content: "q" }]) as never).catch(() => {});
    expect(server.promptCache!.size).toBe(0);
    const answered = await client.messages.create(request([{ role: "user", content: "q" }]) as never);
    expect(answered.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(server.promptCache!.size).toBe(1);
  });

  it("the scripted client simulates the same cache", async () => {
    const client = createScriptedModelClient({ promptCache: true, script: [textTurn("a"), textTurn("b")] });
    const ask = {
      model: "claude-sonnet-4-5",
      maxTokens: 64,
      system: [text(LONG, MARK)] as Array<{ type: "text"; text: string }>,
      messages: [{ role: "user" as const, content: "q" }],
      tools: [],
      signal: new AbortController().signal,
    };
    const first = await client.create(ask);
    const second = await client.create(ask);
    expect(first.usage?.cache_creation_input_tokens).toBe(estimateTokens(text(LONG)));
    expect(second.usage?.cache_read_input_tokens).toBe(estimateTokens(text(LONG)));
    const refused = createScriptedModelClient({ promptCache: true, script: [textTurn("a")] });
    const error = await refused
      .create({ ...ask, system: [text("", MARK)] as Array<{ type: "text"; text: string }> })
      .catch(e => e);
    expect(error.status).toBe(400);
    expect(refused.pending()).toBe(1);
  });
});
