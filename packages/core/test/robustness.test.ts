// Core robustness: no input, tool or consumer can poison a session or wedge an agent. After every case the
// history and the JSONL store are well-formed (every tool_use answered by exactly one tool_result) and the agent
// answers the next query.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createScriptedModelClient,
  type MockScriptItem,
  rateLimited,
  textTurn,
  toolTurn,
} from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { findHistoryProblem } from "../src/history-invariant.js";
import {
  type Agent,
  APIError,
  createAgentFactory,
  createBareAgent,
  createJsonlContextTracer,
  createJsonlHistoryStore,
  InvalidOptionError,
  InvalidPromptError,
  type ModelMessage,
  type ModelRequest,
  type SDKMessage,
  type SDKResultMessage,
  tool,
} from "../src/index.js";
import { mockServer } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-robust-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise(resolve => server.close(resolve));
  return port;
}

/** What a JSONL file holds, read back through a fresh store (as a resumed process would). */
async function stored(path: string): Promise<ModelMessage[]> {
  return createJsonlHistoryStore({ path }).load();
}

/** The history, the store and the next query are all fine. */
async function expectHealthy(
  agent: Agent,
  client: { enqueue(...items: MockScriptItem[]): void },
  path?: string,
) {
  const history = await agent.getHistory();
  expect(findHistoryProblem(history)).toBeUndefined();
  if (path) expect(findHistoryProblem(await stored(path))).toBeUndefined();
  client.enqueue(textTurn("still here"));
  const next = await agent.prompt("Are you there?");
  expect(next).toMatchObject({ subtype: "success", result: "still here" });
  expect(findHistoryProblem(await agent.getHistory())).toBeUndefined();
  if (path) expect(await stored(path)).toEqual(await agent.getHistory());
}

function agentWith(
  tools: Parameters<typeof createBareAgent>[0]["tools"],
  script: MockScriptItem[],
  extra = {},
  respond?: (request: unknown, index: number) => MockScriptItem,
) {
  const path = join(dir, "history.jsonl");
  const client = createScriptedModelClient({ script, ...(respond ? { respond } : {}) });
  const agent = createBareAgent({
    model: "m",
    modelClient: client,
    tools: tools ?? [],
    historyStore: createJsonlHistoryStore({ path }),
    toolAbortGraceMs: 100,
    ...extra,
  });
  return { agent, client, path };
}

const echo = tool("echo", "Echo", z.object({ text: z.string() }), async ({ text }) => ({ content: text }));

describe("1. bad prompts are rejected before anything changes", () => {
  it.each([
    ["undefined", undefined],
    ["a number", 42],
    ["an empty string", ""],
    ["whitespace", "   \n"],
    ["an empty array", []],
    ["a non-block entry", ["hi"]],
    ["an empty text block", [{ type: "text", text: "" }]],
    ["a tool_result block", [{ type: "tool_result", tool_use_id: "x", content: "y" }]],
    ["an image without a source", [{ type: "image" }]],
  ])("%s → InvalidPromptError, no history or store write, the agent still works", async (_label, prompt) => {
    const { agent, client, path } = agentWith([], []);
    expect(() => agent.query(prompt as never)).toThrow(InvalidPromptError);
    await expect(agent.prompt(prompt as never)).rejects.toMatchObject({ code: "invalid_prompt" });
    expect(await agent.getHistory()).toEqual([]);
    expect(await stored(path)).toEqual([]);
    expect(client.requests).toHaveLength(0);
    await expectHealthy(agent, client, path);
  });
});

describe("2. a consumer that stops early leaves a well-formed history", () => {
  it("break at the assistant message carrying a tool_use: the call is answered as not run", async () => {
    const ran: string[] = [];
    const recorder = tool("rec", "Record", z.object({ text: z.string() }), async ({ text }) => {
      ran.push(text);
      return { content: text };
    });
    const { agent, client, path } = agentWith(
      [recorder],
      [toolTurn({ name: "rec", input: { text: "x" }, id: "t1" })],
    );
    for await (const message of agent.query("go")) if (message.type === "assistant") break;
    expect(ran).toEqual([]);
    const history = await agent.getHistory();
    expect(history.at(-1)).toMatchObject({ role: "user", content: [{ tool_use_id: "t1", is_error: true }] });
    await expectHealthy(agent, client, path);
    // The next request the model saw was well-formed too.
    expect(findHistoryProblem(client.requests.at(-1)!.messages)).toBeUndefined();
  });

  it("break while a tool runs (at a message it streams): the tool is told to stop, break returns promptly", async () => {
    let sawAbort = false;
    const progress = tool(
      "progress",
      "Reports progress, then works until stopped",
      z.object({}),
      async (_input, extra) => {
        await extra.emit({ type: "system", subtype: "init", session_id: "progress", model: "m", tools: [] });
        await new Promise<void>(resolve =>
          extra.signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        sawAbort = true;
        return { content: "stopped early" };
      },
    );
    const { agent, client, path } = agentWith(
      [progress],
      [toolTurn({ name: "progress", input: {}, id: "t1" })],
    );
    const started = Date.now();
    for await (const message of agent.query("go")) if (message.session_id === "progress") break;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sawAbort).toBe(true);
    const results = (await agent.getHistory()).at(-1)!.content;
    expect(results).toEqual([{ type: "tool_result", tool_use_id: "t1", content: "stopped early" }]);
    await expectHealthy(agent, client, path);
  });

  it("return() at every point of a delegating query leaves parent and child usable", async () => {
    for (let stopAt = 0; stopAt < 8; stopAt++) {
      const childClient = createScriptedModelClient({ respond: () => textTurn("child answer") });
      const child = createBareAgent({ model: "m", modelClient: childClient });
      const { agentTool } = await import("../src/index.js");
      const { agent, client, path } = agentWith([agentTool("child", child)], [], {}, (_request, index) =>
        index === 0 ? toolTurn({ name: "child", input: { task: "t" } }) : textTurn("done"),
      );
      let index = 0;
      for await (const _message of agent.query("go")) if (index++ === stopAt) break;
      await expectHealthy(agent, client, path);
      expect((await child.prompt("still usable?")).subtype).toBe("success");
      await rm(path, { force: true });
    }
  });
});

describe("3. a tool that never settles cannot wedge the agent", () => {
  const stuck = (options = {}) =>
    tool("stuck", "Never returns and ignores its signal", z.object({}), () => new Promise(() => {}), options);

  it("an abort ends the query within the grace period; the call is recorded as abandoned", async () => {
    const { agent, client, path } = agentWith([stuck()], [toolTurn({ name: "stuck", input: {}, id: "t1" })]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const started = Date.now();
    const result = await agent.prompt("go", { signal: controller.signal });
    expect(result.subtype).toBe("error_abort");
    expect(Date.now() - started).toBeLessThan(2_000);
    const results = (await agent.getHistory()).at(-1)!.content as Array<{ content: string }>;
    expect(results[0]!.content).toMatch(/abandoned/);
    await expectHealthy(agent, client, path);
  });

  it("break while it runs returns promptly and frees the agent", async () => {
    const { agent, client, path } = agentWith([stuck()], [toolTurn({ name: "stuck", input: {}, id: "t1" })]);
    const started = Date.now();
    for await (const message of agent.query("go")) {
      if (message.type === "assistant") {
        await sleep(0);
        break;
      }
    }
    expect(Date.now() - started).toBeLessThan(2_000);
    await expectHealthy(agent, client, path);
  });

  it("its own timeoutMs ends the call with an error result and the loop goes on", async () => {
    const { agent, client, path } = agentWith(
      [stuck({ timeoutMs: 50 })],
      [toolTurn({ name: "stuck", input: {}, id: "t1" }), textTurn("recovered")],
    );
    const result = await agent.prompt("go");
    expect(result).toMatchObject({ subtype: "success", result: "recovered" });
    const answer = (
      client.requests[1]!.messages.at(-1)!.content as Array<{ content: string; is_error: boolean }>
    )[0]!;
    expect(answer.is_error).toBe(true);
    expect(answer.content).toMatch(/50 ms timeout/);
    await expectHealthy(agent, client, path);
  });

  /** A tool that reports when it started and when it was told to stop, never settles, and ignores its signal. */
  const deaf = () => {
    const seen: string[] = [];
    let started!: () => void;
    const running = new Promise<void>(resolve => {
      started = resolve;
    });
    const definition = tool("deaf", "Never returns and ignores its signal", z.object({}), (_input, extra) => {
      extra.signal.addEventListener("abort", () => seen.push("told to stop"), { once: true });
      seen.push("started");
      started();
      return new Promise(() => {});
    });
    return { definition, seen, running };
  };

  it("interrupt() during it stops the call (no timeout of its own needed): abandoned after the grace, 'interrupted'", async () => {
    const { definition, seen, running } = deaf();
    const { agent, client, path } = agentWith(
      [definition],
      [toolTurn({ name: "deaf", input: {}, id: "t1" })],
    );
    const messages: SDKMessage[] = [];
    const done = (async () => {
      for await (const message of agent.query("go")) messages.push(message);
    })();
    await running;
    expect(agent.interrupt()).toBe(true);
    await done;
    expect(seen).toEqual(["started", "told to stop"]);
    const settled = messages.filter(message => message.type !== "stream_event");
    expect(settled.map(message => message.type)).toEqual(["system", "assistant", "system", "user", "result"]);
    expect(settled[2]).toMatchObject({
      type: "system",
      subtype: "tool_error",
      tool_name: "deaf",
      tool_use_id: "t1",
      reason: "abandoned",
    });
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ subtype: "interrupted", is_error: false, tool_errors: { deaf: 1 } });
    const answer = (await agent.getHistory()).at(-1)!.content as Array<{
      content: string;
      is_error: boolean;
    }>;
    expect(answer[0]!.is_error).toBe(true);
    expect(answer[0]!.content).toMatch(/stopped because the query was interrupted.*abandoned/);
    expect(client.requests).toHaveLength(1); // no model request after the interrupt
    await expectHealthy(agent, client, path);
  });

  it("return() while it runs — with no message to break at — ends the query and frees the agent", async () => {
    const { definition, seen, running } = deaf();
    const { agent, client, path } = agentWith(
      [definition],
      [toolTurn({ name: "deaf", input: {}, id: "t1" })],
    );
    const query = agent.query("go");
    const steps: Array<Promise<IteratorResult<SDKMessage>>> = [];
    let step = await query.next();
    while (!step.done && step.value.type !== "assistant") step = await query.next();
    steps.push(query.next()); // pending: the batch runs and never ends by itself
    await running;
    const ended = query.return(undefined);
    expect(await ended).toEqual({ done: true, value: undefined });
    await Promise.all(steps);
    expect(seen).toEqual(["started", "told to stop"]);
    const answer = (await agent.getHistory()).at(-1)!.content as Array<{ content: string }>;
    expect(answer[0]!.content).toMatch(/abandoned/);
    await expectHealthy(agent, client, path);
  });

  it("break at a message it streamed, while it ignores its signal: the call is abandoned, the agent is free", async () => {
    const seen: string[] = [];
    const chatty = tool("chatty", "Reports progress, then hangs", z.object({}), async (_input, extra) => {
      extra.signal.addEventListener("abort", () => seen.push("told to stop"), { once: true });
      await extra.emit({ type: "system", subtype: "init", session_id: "progress", model: "m", tools: [] });
      return new Promise(() => {});
    });
    const { agent, client, path } = agentWith([chatty], [toolTurn({ name: "chatty", input: {}, id: "t1" })]);
    for await (const message of agent.query("go")) if (message.session_id === "progress") break;
    expect(seen).toEqual(["told to stop"]);
    const answer = (await agent.getHistory()).at(-1)!.content as Array<{ content: string }>;
    expect(answer[0]!.content).toMatch(/abandoned/);
    await expectHealthy(agent, client, path);
  });

  it("the handler's signal is aborted with the stop's reason whether it is read before or after the stop", async () => {
    // The signal is made on first read: a handler that looks at it only after its timeout fired must still see it
    // aborted, and one that subscribed first must be told.
    const seen: Array<{ when: string; aborted: boolean; reason: string }> = [];
    const early = tool(
      "early",
      "reads its signal at once",
      z.object({}),
      (_input, extra) => {
        const signal = extra.signal;
        return new Promise(resolve => {
          signal.addEventListener("abort", () => {
            seen.push({ when: "early", aborted: signal.aborted, reason: String(signal.reason?.message) });
            resolve({ content: "stopped" });
          });
        });
      },
      { timeoutMs: 30 },
    );
    const late = tool(
      "late",
      "reads its signal after the stop",
      z.object({}),
      async (_input, extra) => {
        await sleep(80);
        seen.push({
          when: "late",
          aborted: extra.signal.aborted,
          reason: String(extra.signal.reason?.message),
        });
        return { content: "late" };
      },
      { timeoutMs: 30 },
    );
    const { agent, client, path } = agentWith(
      [early, late],
      [
        toolTurn({ name: "early", input: {}, id: "t1" }),
        toolTurn({ name: "late", input: {}, id: "t2" }),
        textTurn("done"),
      ],
    );
    expect(await agent.prompt("go")).toMatchObject({ subtype: "success" });
    expect(seen).toEqual([
      { when: "early", aborted: true, reason: 'Tool "early" timed out after 30 ms.' },
      { when: "late", aborted: true, reason: 'Tool "late" timed out after 30 ms.' },
    ]);
    await expectHealthy(agent, client, path);
  });

  it("rejects an invalid timeoutMs at assembly", () => {
    expect(() => tool("t", "d", z.object({}), async () => ({ content: "" }), { timeoutMs: -1 })).toThrow(
      /timeoutMs must be a positive integer/,
    );
  });
});

describe("4. deeply nested tool input cannot break later queries", () => {
  const nested = (depth: number) => {
    let value: unknown = "leaf";
    for (let i = 0; i < depth; i++) value = { next: value };
    return value;
  };

  it.each([500, 3_000])(
    "depth %i over real HTTP: an error result, a well-formed store, the next query works",
    async depth => {
      const server = await mockServer([
        toolTurn({ name: "echo", input: nested(depth), id: "t_deep" }),
        textTurn("ok"),
      ]);
      const path = join(dir, "history.jsonl");
      const agent = createBareAgent({
        apiKey: "k",
        baseURL: server.url,
        model: "mock",
        tools: [echo],
        historyStore: createJsonlHistoryStore({ path }),
      });
      const result = await agent.prompt("go");
      expect(result).toMatchObject({ subtype: "success", result: "ok" });
      const history = await agent.getHistory();
      const answer = (history[2]!.content as Array<{ content: string; is_error: boolean }>)[0]!;
      expect(answer).toMatchObject({ is_error: true });
      expect(answer.content).toMatch(/nested deeper than 64 levels/);
      expect(findHistoryProblem(await stored(path))).toBeUndefined();
      server.enqueue(textTurn("fine"));
      expect((await agent.prompt("again")).result).toBe("fine");
    },
  );

  it("depth 200,000 from a custom client: no recursion anywhere (history copies, traces, the store)", async () => {
    const path = join(dir, "history.jsonl");
    let calls = 0;
    const agent = createBareAgent({
      model: "m",
      tools: [echo],
      historyStore: createJsonlHistoryStore({ path }),
      tracer: createJsonlContextTracer({ path: join(dir, "trace.jsonl") }),
      modelClient: {
        async create() {
          calls += 1;
          const content =
            calls === 1
              ? [{ type: "tool_use" as const, id: "t_deep", name: "echo", input: nested(200_000) }]
              : [{ type: "text" as const, text: "ok" }];
          return {
            message: { role: "assistant", content },
            stopReason: calls === 1 ? "tool_use" : "end_turn",
          };
        },
      },
    });
    expect((await agent.prompt("go")).result).toBe("ok");
    expect(findHistoryProblem(await agent.getHistory())).toBeUndefined();
    expect(findHistoryProblem(await stored(path))).toBeUndefined();
  });

  it("replaceHistory() refuses a history with deeply nested input", async () => {
    const agent = createBareAgent({ model: "m", modelClient: createScriptedModelClient() });
    const history: ModelMessage[] = [
      { role: "user", content: "x" },
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "echo", input: nested(500) }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "y" }] },
    ];
    await expect(agent.replaceHistory(history)).rejects.toThrow(/nested deeper than 64 levels/);
  });
});

describe("5. anything a tool throws becomes a readable error result", () => {
  const throwing = (value: () => unknown) =>
    tool("bad", "Throws", z.object({}), async () => {
      throw value();
    });

  it.each([
    ["an object without a prototype", () => Object.create(null)],
    [
      "a Proxy whose traps throw",
      () =>
        new Proxy(
          {},
          {
            get: () => {
              throw new Error("trap");
            },
            getPrototypeOf: () => {
              throw new Error("trap");
            },
          },
        ),
    ],
    [
      "an object whose toString throws",
      () => ({
        toString: () => {
          throw new Error("no");
        },
      }),
    ],
    [
      "an object whose message getter throws",
      () => ({
        get message() {
          throw new Error("no");
        },
      }),
    ],
    ["undefined", () => undefined],
    ["a string", () => "plain string"],
  ])("%s", async (_label, value) => {
    const { agent, client, path } = agentWith(
      [throwing(value)],
      [toolTurn({ name: "bad", input: {}, id: "t1" }), textTurn("ok")],
    );
    const result = await agent.prompt("go");
    expect(result.subtype).toBe("success");
    const answer = (
      client.requests[1]!.messages.at(-1)!.content as Array<{ content: string; is_error: boolean }>
    )[0]!;
    expect(answer.is_error).toBe(true);
    expect(answer.content).toMatch(/^Tool "bad" failed: /);
    expect(answer.content).not.toMatch(/onToolResult/);
    await expectHealthy(agent, client, path);
  });
});

describe("6. retry-after is capped and retry waits end with the query", () => {
  it("a 429 asking for longer than maxRetryDelayMs fails at once with the provider's error", async () => {
    const server = await mockServer([rateLimited(120)]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "mock",
      maxRetryDelayMs: 1_000,
    });
    const started = Date.now();
    const result = await agent.prompt("hi");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.subtype).toBe("error_during_execution");
    expect(result.error).toBeInstanceOf(APIError);
    expect(result.error).toMatchObject({ status: 429, type: "rate_limit_error" });
    expect(result.error!.message).toMatch(/retry after 120 s, longer than maxRetryDelayMs \(1000 ms\)/);
    expect(server.requests).toHaveLength(1);
  });

  it("a retry-after within the cap is honoured", async () => {
    const server = await mockServer([rateLimited(0.2), textTurn("after the wait")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "mock" });
    const started = Date.now();
    expect((await agent.prompt("hi")).result).toBe("after the wait");
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
  });

  it("the retry wait is cancelled with the query: a short-lived process exits right after its deadline", async () => {
    const server = await mockServer([rateLimited(7), rateLimited(7), rateLimited(7)]);
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL("./fixtures/retry-after-child.mjs", import.meta.url)), server.url],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let output = "";
    child.stdout.on("data", chunk => {
      output += chunk;
    });
    const started = Date.now();
    await new Promise(resolve => child.once("exit", resolve));
    expect(output.trim()).toMatch(/^error_abort \d+$/);
    expect(Date.now() - started).toBeLessThan(5_000); // the 7 s wait did not keep the process alive
  });
});

describe("7. ModelRequest.timeoutMs", () => {
  it("carries the request deadline to the client", async () => {
    const seen: Array<number | undefined> = [];
    const agent = createBareAgent({
      model: "m",
      requestTimeoutMs: 4_321,
      modelClient: {
        async create(request: ModelRequest) {
          seen.push(request.timeoutMs);
          return {
            message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
            stopReason: "end_turn",
          };
        },
      },
    });
    await agent.prompt("a");
    await agent.prompt("b", { requestTimeoutMs: 1_234 });
    expect(seen).toEqual([4_321, 1_234]);
  });
});

describe("8. errors explain themselves", () => {
  it("a failed run's result text says why", async () => {
    const client = createScriptedModelClient({ script: [toolTurn({ name: "echo", input: { text: "x" } })] });
    const result: SDKResultMessage = await createBareAgent({
      model: "m",
      modelClient: client,
      tools: [echo],
      maxTurns: 1,
    }).prompt("go");
    expect(result.subtype).toBe("error_max_turns");
    expect(result.result).toBe(result.error!.message);
    expect(result.result).toMatch(/maxTurns \(1\)/);
  });

  it("a connection failure names the host it tried", async () => {
    const port = await closedPort();
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: `http://127.0.0.1:${port}`,
      model: "m",
      maxRetries: 0,
    });
    const result = await agent.prompt("hi");
    expect(result.subtype).toBe("error_during_execution");
    expect(result.result).toContain(`http://127.0.0.1:${port}`);
    expect(result.result).toMatch(/ECONNREFUSED/);
  });

  it("model: 42 says what is wrong with it", () => {
    expect(() => createBareAgent({ model: 42 as never, modelClient: createScriptedModelClient() })).toThrow(
      /AgentOptions\.model must be a non-empty model name string .* got number/,
    );
  });

  it("a tool named like a built-in workspace tool says which one it collides with", () => {
    const { createAgent } = createAgentFactory({
      workspace: {
        createSession: () => ({
          tools: [tool("Read", "built-in read", z.object({}), async () => ({ content: "" }))],
        }),
      },
    });
    const mine = tool("Read", "my read", z.object({}), async () => ({ content: "" }));
    expect(() =>
      createAgent({ model: "m", modelClient: createScriptedModelClient(), tools: [mine] }),
    ).toThrow(/"Read", the name of a built-in workspace tool createAgent\(\) installs.*workspace: false/);
  });

  it("defineAgent() asks for the API key when a session is spawned, not when the template is defined", () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const { defineAgent } = createAgentFactory();
      const spec = defineAgent({ model: "m" });
      expect(() => spec.spawn()).toThrow(InvalidOptionError);
      expect(() => spec.spawn()).toThrow(/no API key/);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it("replaceHistory() with a malformed history throws a typed error and changes nothing", async () => {
    const client = createScriptedModelClient({ script: [textTurn("one")] });
    const path = join(dir, "h.jsonl");
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: createJsonlHistoryStore({ path }),
    });
    await agent.prompt("first");
    const before = await agent.getHistory();
    const dangling: ModelMessage[] = [
      { role: "user", content: "x" },
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "echo", input: {} }] },
    ];
    await expect(agent.replaceHistory(dangling)).rejects.toMatchObject({ code: "invalid_history" });
    await expect(agent.replaceHistory([{ role: "system", content: "x" }] as never)).rejects.toThrow(
      /role must be/,
    );
    await expect(agent.replaceHistory("nope" as never)).rejects.toThrow(/expected an array/);
    expect(await agent.getHistory()).toEqual(before);
    expect(await stored(path)).toEqual(before);
  });
});

describe("load-time repair anywhere in the file", () => {
  it("answers a dangling tool_use in the middle and drops an orphan tool_result, then rewrites the store", async () => {
    const path = join(dir, "torn.jsonl");
    const lines: ModelMessage[] = [
      { role: "user", content: "a" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "echo", input: {} }] },
      // the tool_result line for t1 was lost
      { role: "assistant", content: [{ type: "text", text: "b" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "ghost", content: "orphan" }] },
    ];
    const store = createJsonlHistoryStore({ path });
    await store.replace(lines);
    const client = createScriptedModelClient({ script: [textTurn("fine")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: createJsonlHistoryStore({ path }),
    });
    expect((await agent.prompt("c")).result).toBe("fine");
    const history = await agent.getHistory();
    expect(findHistoryProblem(history)).toBeUndefined();
    expect(history[2]).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", is_error: true }],
    });
    expect(JSON.stringify(history)).toContain("was dropped");
    expect(await stored(path)).toEqual(history);
  });
});
