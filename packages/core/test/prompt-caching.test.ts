// Prompt caching by default: where core places cache_control breakpoints, what never carries them, the options,
// hooks, and the fallback for providers that refuse the field. Real HTTP against the mock server, whose
// prompt-cache simulation (promptCache: true) says what each request would read and write.
import {
  cacheBreakpoints,
  createScriptedModelClient,
  invalidRequest,
  type MockAnthropicServer,
  type MockScriptItem,
  promptBlocks,
  textTurn,
  toolTurn,
} from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  CONCURRENCY_HINT,
  type ContextTraceEvent,
  createBareAgent,
  defineContextTracer,
  defineHistoryStore,
  InvalidOptionError,
  type ModelMessage,
  type ModelRequest,
  type PromptCaching,
  type SDKMessage,
  skill,
  type TextBlock,
  tool,
  withoutCacheControl,
} from "../src/index.js";
import { collect, mockServer } from "./helpers.js";

const MARK = { type: "ephemeral" };
/** About 1,400 estimated tokens: above the 1,024-token minimum the simulation applies to model "m". */
const LONG = "You are a meticulous analyst. Follow the house style in every answer. ".repeat(80);
const echo = tool("echo", "Echo text back", z.object({ text: z.string() }), async ({ text }) => ({
  content: `echo: ${text}`,
}));

async function cachingServer(script: MockScriptItem[]): Promise<MockAnthropicServer> {
  return mockServer(script, { promptCache: true });
}

function agentFor(server: MockAnthropicServer, options: Record<string, unknown> = {}) {
  return createBareAgent({
    apiKey: "k",
    baseURL: server.url,
    model: "m",
    systemPrompt: LONG,
    tools: [echo],
    ...options,
  });
}

const breakpointsOf = (server: MockAnthropicServer) => server.requests.map(r => cacheBreakpoints(r.body));
const calls = (count: number, prefix = "c") =>
  Array.from({ length: count }, (_, i) => ({ name: "echo", input: { text: `${prefix}${i}` } }));

/** Every request of every test in this file stays within the provider's limit. */
function expectWithinLimit(server: MockAnthropicServer) {
  for (const request of server.requests) expect(cacheBreakpoints(request.body).length).toBeLessThanOrEqual(4);
}

describe("breakpoint placement (prompt caching on by default)", () => {
  it("single turn: the end of the host's system prompt and the last block of the prompt", async () => {
    const server = await cachingServer([textTurn("hello")]);
    await agentFor(server).prompt("hi");
    const body = server.requests[0]!.body;
    expect(cacheBreakpoints(body)).toEqual(["system.0", "messages.0.content.0"]);
    expect(body.system).toEqual([{ type: "text", text: LONG, cache_control: MARK }]);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi", cache_control: MARK }] },
    ]);
    // The simulated provider writes both prefixes.
    expect(server.requests[0]!.promptCache!.written).toEqual(["system.0", "messages.0.content.0"]);
  });

  it("without a system prompt the shared prefix ends at the last tool", async () => {
    const server = await cachingServer([textTurn("hello")]);
    await agentFor(server, { systemPrompt: undefined }).prompt("hi");
    expect(breakpointsOf(server)).toEqual([["tools.0", "messages.0.content.0"]]);
    expect(server.requests[0]!.body).not.toHaveProperty("system");
  });

  it("tool loop: the moving breakpoint follows the newest tool results, each request reads the previous one", async () => {
    const server = await cachingServer([
      toolTurn(calls(1, "a")),
      toolTurn(calls(1, "b")),
      toolTurn(calls(1, "c")),
      textTurn("done"),
    ]);
    const result = await agentFor(server).prompt("Check three items.");
    expect(breakpointsOf(server)).toEqual([
      ["system.0", "messages.0.content.0"],
      ["system.0", "messages.2.content.0"],
      ["system.0", "messages.4.content.0"],
      ["system.0", "messages.6.content.0"],
    ]);
    const hits = server.requests.map(r => r.promptCache!.hit?.location);
    // The prompt is stored as a string: once it is not the newest message it goes out as one again.
    expect(hits).toEqual([undefined, "messages.0.content", "messages.2.content.0", "messages.4.content.0"]);
    const reads = server.requests.reduce((sum, r) => sum + r.promptCache!.usage.cache_read_input_tokens, 0);
    expect(result.usage.cache_read_input_tokens).toBe(reads);
    expect(result.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it("a batch of many tool results (≥ 20 new blocks) keeps a breakpoint where the previous request's was", async () => {
    const server = await cachingServer([toolTurn(calls(10)), toolTurn(calls(1, "x")), textTurn("done")]);
    await agentFor(server).prompt("Check ten items at once.");
    const [first, batch, after] = breakpointsOf(server);
    expect(first).toEqual(["system.0", "messages.0.content.0"]);
    // 10 tool_use + 10 tool_result blocks since the prompt: beyond the provider's 20-block look-back.
    expect(batch).toEqual(["system.0", "messages.0.content.0", "messages.2.content.9"]);
    expect(server.requests[1]!.promptCache!.hit?.location).toBe("messages.0.content.0");
    // Marking turned the stored string prompt into one text block; the cache sees the same prompt.
    expect(server.requests[1]!.body.messages[0].content).toEqual([
      { type: "text", text: "Check ten items at once.", cache_control: MARK },
    ]);
    // The next turn adds two blocks: the moving breakpoint alone finds the batch's entry.
    expect(after).toEqual(["system.0", "messages.4.content.0"]);
    expect(server.requests[2]!.promptCache!.hit?.location).toBe("messages.2.content.9");
    expectWithinLimit(server);
  });

  it("a smaller batch (18 new blocks) needs no extra breakpoint: the look-back reaches the previous one", async () => {
    const server = await cachingServer([toolTurn(calls(9)), textTurn("done")]);
    await agentFor(server).prompt("Check nine items at once.");
    expect(breakpointsOf(server)[1]).toEqual(["system.0", "messages.2.content.8"]);
    expect(server.requests[1]!.promptCache!.hit?.location).toBe("messages.0.content");
  });

  it("compaction: the summarizing request carries none; afterwards the tools and system prompt are still read", async () => {
    const server = await cachingServer([
      toolTurn(calls(1, "a")),
      toolTurn(calls(1, "b"), { usage: { input_tokens: 150_000 } }),
      textTurn("SUMMARY: echoed a and b."),
      textTurn("done"),
    ]);
    const agent = agentFor(server, { autoCompact: { thresholdTokens: 100_000, keepRecentMessages: 2 } });
    const messages = await collect(agent.query("Echo a, then b."));
    expect(messages.some(m => m.type === "system" && m.subtype === "compaction")).toBe(true);
    const [, , summary, next] = server.requests;
    expect(cacheBreakpoints(summary!.body)).toEqual([]);
    expect(cacheBreakpoints(next!.body)).toEqual(["system.0", "messages.2.content.0"]);
    // The rewritten conversation is a deliberate reset: only tools + system prompt come from the cache.
    expect(next!.promptCache!.hit?.location).toBe("system.0");
    expect(JSON.stringify(await agent.getHistory())).not.toContain("cache_control");
  });

  it("skills: the skills section is its own system block, marked; another query's skills keep tools + prompt cached", async () => {
    const review = skill({
      name: "code-review",
      description: "Review code changes",
      instructions: "List bugs and risks before any summary.",
    });
    const server = await cachingServer([toolTurn(calls(1)), textTurn("reviewed"), textTurn("summary")]);
    const agent = agentFor(server, { skills: [review] });
    await agent.prompt("Please do a code-review of this diff.");
    const [first, second] = server.requests.map(r => r.body);
    // The host's prompt, the session's part (here the batching hint: echo and load_skill may run together),
    // then the query's skills section.
    expect(first.system.map((block: TextBlock) => block.text.slice(0, 10))).toEqual([
      LONG.slice(0, 10),
      CONCURRENCY_HINT.slice(0, 10),
      "# Skills\n\n",
    ]);
    expect(cacheBreakpoints(first)).toEqual(["system.0", "system.2", "messages.0.content.0"]);
    expect(first.system[0]).toEqual({ type: "text", text: LONG, cache_control: MARK });
    expect(first.system[2].text).toContain("## Active skill: code-review");
    // Within the query the whole prefix, skills included, is read back.
    expect(second.system).toEqual(first.system);
    expect(server.requests[1]!.promptCache!.hit?.location).toBe("messages.0.content");

    await agent.prompt("Now summarize the release notes.");
    const third = server.requests[2]!;
    expect(third.body.system[2].text).not.toContain("## Active skill");
    expect(cacheBreakpoints(third.body)).toEqual(["system.0", "system.2", "messages.4.content.0"]);
    expect(third.promptCache!.hit?.location).toBe("system.0");
  });

  it("two sessions built from the same options share the cached tools and system prompt", async () => {
    const server = await cachingServer([textTurn("one"), textTurn("two")]);
    await agentFor(server).prompt("first session");
    await agentFor(server).prompt("second session");
    expect(server.requests[1]!.promptCache!.hit?.location).toBe("system.0");
  });

  it("never more than four, counting markers the host put into its own prompt", async () => {
    const review = skill({ name: "code-review", description: "Review code", instructions: "Be strict." });
    const server = await cachingServer([toolTurn(calls(10)), textTurn("done")]);
    const agent = agentFor(server, { skills: [review] });
    const result = await agent.prompt([
      {
        type: "document",
        source: { type: "text", media_type: "text/plain", data: LONG },
        cache_control: { type: "ephemeral" },
      },
      { type: "text", text: "Do a code-review of this document, one item at a time." },
    ]);
    expect(result.subtype).toBe("success");
    expect(breakpointsOf(server)).toEqual([
      // host's document marker + the moving one + the shared prefix + the skills section
      ["system.0", "system.2", "messages.0.content.0", "messages.0.content.1"],
      // host's marker + moving + the kept one (the previous request's) + the shared prefix
      ["system.0", "messages.0.content.0", "messages.0.content.1", "messages.2.content.9"],
    ]);
    expectWithinLimit(server);
  });
});

describe("what never carries breakpoints", () => {
  it("the stored history, getHistory(), the history store and the SDK messages have none", async () => {
    const stored: ModelMessage[] = [];
    const historyStore = defineHistoryStore({
      load: () => [],
      append: message => void stored.push(structuredClone(message)),
      replace: messages => void stored.splice(0, stored.length, ...structuredClone(messages)),
    });
    const server = await cachingServer([toolTurn(calls(2)), textTurn("done")]);
    const agent = agentFor(server, { historyStore });
    const messages = await collect(agent.query("Echo two things."));
    expect(cacheBreakpoints(server.requests[1]!.body)).not.toEqual([]);
    expect(JSON.stringify(await agent.getHistory())).not.toContain("cache_control");
    expect(JSON.stringify(stored)).not.toContain("cache_control");
    expect(JSON.stringify(messages.filter(m => m.type !== "stream_event"))).not.toContain("cache_control");
  });

  it("promptCaching: false sends none, and the system prompt as one string", async () => {
    const server = await cachingServer([toolTurn(calls(1)), textTurn("done")]);
    await agentFor(server, { promptCaching: false }).prompt("Echo one thing.");
    expect(breakpointsOf(server)).toEqual([[], []]);
    expect(server.requests[0]!.body.system).toBe(LONG);
    expect(server.requests[1]!.promptCache!.usage.cache_read_input_tokens).toBe(0);
  });
});

describe("options", () => {
  it("a query's promptCaching overrides the agent's, both ways, for that query only", async () => {
    const server = await cachingServer([textTurn("1"), textTurn("2"), textTurn("3"), textTurn("4")]);
    const on = agentFor(server);
    await on.prompt("a", { promptCaching: false });
    await on.prompt("b");
    const off = agentFor(server, { promptCaching: false });
    await off.prompt("c", { promptCaching: true });
    await off.prompt("d");
    expect(breakpointsOf(server).map(list => list.length)).toEqual([0, 2, 2, 0]);
  });

  it('{ ttl: "1h" } marks every breakpoint with the one-hour lifetime, on the agent or per query', async () => {
    const server = await cachingServer([textTurn("1"), textTurn("2")]);
    await agentFor(server, { promptCaching: { ttl: "1h" } }).prompt("a");
    await agentFor(server).prompt("b", { promptCaching: { ttl: "1h" } });
    for (const request of server.requests) {
      const markers = promptBlocks(request.body).flatMap(block => block.cacheControl ?? []);
      expect(markers).toEqual([
        { type: "ephemeral", ttl: "1h" },
        { type: "ephemeral", ttl: "1h" },
      ]);
    }
    expect(server.requests[0]!.promptCache!.usage.cache_creation.ephemeral_1h_input_tokens).toBeGreaterThan(
      0,
    );
  });

  it("strict validation on the agent and per query", () => {
    const invalid: unknown[] = ["yes", 1, null, [], { ttl: "2h" }, { ttl: 60 }, { ttl: "1h", scope: "org" }];
    for (const promptCaching of invalid) {
      expect(() =>
        createBareAgent({ model: "m", apiKey: "k", promptCaching: promptCaching as PromptCaching }),
      ).toThrow(InvalidOptionError);
      const agent = createBareAgent({ model: "m", apiKey: "k" });
      expect(() => agent.query("x", { promptCaching: promptCaching as PromptCaching })).toThrow(
        /promptCaching/,
      );
    }
    expect(() => createBareAgent({ model: "m", apiKey: "k", promptCaching: {} })).not.toThrow();
  });
});

describe("hooks and custom clients", () => {
  it("onModelRequest sees the breakpoints and can remove them all", async () => {
    const seen: Array<{ system: unknown; last: unknown }> = [];
    const server = await cachingServer([textTurn("ok")]);
    await agentFor(server, {
      hooks: {
        onModelRequest: (input: { messages: readonly ModelMessage[]; system: unknown; tools: unknown }) => {
          seen.push({ system: input.system, last: input.messages.at(-1) });
          return withoutCacheControl(input as never);
        },
      },
    }).prompt("hi");
    expect(seen[0]!.system).toEqual([{ type: "text", text: LONG, cache_control: MARK }]);
    expect(seen[0]!.last).toEqual({
      role: "user",
      content: [{ type: "text", text: "hi", cache_control: MARK }],
    });
    expect(breakpointsOf(server)).toEqual([[]]);
  });

  it("onModelRequest can change them: here, the one-hour lifetime on the system prompt only", async () => {
    const server = await cachingServer([textTurn("ok")]);
    await agentFor(server, {
      hooks: {
        onModelRequest: ({ system }: { system: TextBlock[] }) => ({
          system: system.map(block => ({ ...block, cache_control: { type: "ephemeral", ttl: "1h" } })),
        }),
      },
    }).prompt("hi");
    expect(server.requests[0]!.body.system[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(server.requests[0]!.promptCache!.breakpoints.map(b => b.ttl)).toEqual(["1h", "5m"]);
  });

  it("a custom ModelClient receives them, typed, in the ModelRequest", async () => {
    const client = createScriptedModelClient({ script: [textTurn("ok")] });
    const requests: ModelRequest[] = [];
    await createBareAgent({
      model: "m",
      systemPrompt: "Be brief.",
      modelClient: {
        create: request => {
          requests.push(request);
          return client.create(request) as never;
        },
      },
    }).prompt("hi");
    const system = requests[0]!.system as TextBlock[];
    expect(system[0]!.cache_control).toEqual({ type: "ephemeral" });
    const last = requests[0]!.messages.at(-1)!.content as TextBlock[];
    expect(last[0]!.cache_control).toEqual({ type: "ephemeral" });
    const stripped = withoutCacheControl(requests[0]!);
    expect(JSON.stringify({ ...stripped, signal: undefined })).not.toContain("cache_control");
    expect(stripped.signal).toBe(requests[0]!.signal);
  });
});

describe("byte-stable prefix", () => {
  /** The blocks up to and including request `a`'s last breakpoint, compared without the markers. */
  function expectSharedPrefix(a: { body: unknown }, b: { body: unknown }) {
    const before = promptBlocks(a.body);
    const after = promptBlocks(b.body);
    const last = before.findLastIndex(block => block.cacheControl !== undefined);
    expect(last).toBeGreaterThan(0);
    // Locations may differ (a marked prompt is a block, a stored one a string); the content may not.
    const strip = ({ cacheControl: _c, markers: _m, location: _l, ...rest }: (typeof before)[number]) => rest;
    expect(after.slice(0, last + 1).map(strip)).toEqual(before.slice(0, last + 1).map(strip));
  }

  it("two consecutive requests share an identical prefix up to the earlier one's breakpoint, across queries too", async () => {
    const review = skill({ name: "code-review", description: "Review code", instructions: "Be strict." });
    const server = await cachingServer([
      toolTurn(calls(1, "a")),
      toolTurn(calls(3, "b")),
      textTurn("done"),
      toolTurn(calls(1, "c")),
      textTurn("done again"),
    ]);
    const agent = agentFor(server, { skills: [review] });
    await agent.prompt("Start a code-review.");
    await agent.prompt("Continue the code-review.");
    for (let i = 1; i < server.requests.length; i++) {
      expectSharedPrefix(server.requests[i - 1]!, server.requests[i]!);
      // …and so the simulated provider reads at least up to the previous request's moving breakpoint.
      const previous = server.requests[i - 1]!.promptCache!.breakpoints.at(-1)!;
      expect(server.requests[i]!.promptCache!.hit?.position).toBe(previous.position);
    }
    // The same tools and system text on every request (the system blocks are identical within each query).
    const tools = server.requests.map(r => JSON.stringify(r.body.tools));
    expect(new Set(tools).size).toBe(1);
  });
});

describe("a provider that refuses cache_control never breaks the first run", () => {
  function refusingServer(replies: MockScriptItem[]) {
    return mockServer([]).then(server => {
      server.respondWith(request =>
        JSON.stringify(request.body).includes("cache_control")
          ? invalidRequest("system.0.cache_control: Extra inputs are not permitted")
          : replies.shift()!,
      );
      return server;
    });
  }

  function recorder() {
    const events: ContextTraceEvent[] = [];
    return { events, tracer: defineContextTracer({ onEvent: event => void events.push(event) }) };
  }

  it("retries once without markers, then sends none for this agent, with one note in the trace", async () => {
    const server = await refusingServer([toolTurn(calls(1)), textTurn("done"), textTurn("again")]);
    const { events, tracer } = recorder();
    const agent = agentFor(server, { tracer });
    const first = await agent.prompt("Echo one thing.");
    expect(first.subtype).toBe("success");
    expect(breakpointsOf(server).map(list => list.length)).toEqual([2, 0, 0]);
    const second = await agent.prompt("And again.", { promptCaching: true, stream: false });
    expect(second.subtype).toBe("success");
    expect(breakpointsOf(server).map(list => list.length)).toEqual([2, 0, 0, 0]);
    const notes = events.filter(event => event.type === "error" && event.data.during === "prompt_caching");
    expect(notes).toHaveLength(1);
    expect(notes[0]!.data).toMatchObject({ recovered: true });
    expect((notes[0]!.data as { error: { message: string } }).error.message).toContain("cache_control");
  });

  it("the same on the non-streaming path", async () => {
    const server = await refusingServer([textTurn("done")]);
    const result = await agentFor(server).prompt("hi", { stream: false });
    expect(result.subtype).toBe("success");
    expect(breakpointsOf(server).map(list => list.length)).toEqual([2, 0]);
  });

  it("other invalid requests are not retried", async () => {
    const server = await mockServer([invalidRequest("messages.0.content: unsupported block")]);
    const messages: SDKMessage[] = await collect(agentFor(server).query("hi"));
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "error_during_execution" });
    expect(server.requests).toHaveLength(1);
  });
});
