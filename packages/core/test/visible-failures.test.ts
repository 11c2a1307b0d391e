// Failures a host must be able to see: what a provider error is (APIError.code), a tool that failed, a structured
// output that never validates, the thrown style for hosts that want it, a bad endpoint at assembly.
import {
  createScriptedModelClient,
  httpError,
  invalidRequest,
  type MockScriptItem,
  overloaded,
  rateLimited,
  serverError,
  streamError,
  textTurn,
  toolTurn,
  unauthorized,
} from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { findHistoryProblem } from "../src/history-invariant.js";
import {
  AbortError,
  APIError,
  agentTool,
  createAgentFactory,
  createAnthropicModelClient,
  createBareAgent,
  InvalidOptionError,
  InvalidOutputError,
  MaxTurnsError,
  type SDKMessage,
  type SDKResultMessage,
  tool,
} from "../src/index.js";
import { collect, mockServer } from "./helpers.js";

const settledTypes = (messages: SDKMessage[]) =>
  messages
    .filter(message => message.type !== "stream_event")
    .map(message => (message.type === "system" ? `system:${message.subtype}` : message.type));

describe("APIError.code says what kind of provider failure it was (real HTTP through the built-in client)", () => {
  const cases: Array<[string, string, MockScriptItem, RegExp]> = [
    ["401", "authentication_error", unauthorized(), /answered 401.*Check the API key/],
    [
      "403",
      "permission_error",
      httpError(403, "permission_error", "not allowed"),
      /answered 403.*permissions/,
    ],
    [
      "404",
      "not_found_error",
      httpError(404, "not_found_error", "model: m"),
      /Check the model name and baseURL/,
    ],
    ["429", "rate_limit_error", rateLimited(), /answered 429.*rate/],
    ["529", "overloaded_error", overloaded(), /answered 529.*try again later/],
    [
      "400",
      "invalid_request_error",
      invalidRequest("messages: roles must alternate"),
      /roles must alternate/,
    ],
    ["500", "server_error", serverError(), /answered 500/],
    ["502 with an unknown type", "server_error", httpError(502, "bad_gateway", "upstream"), /answered 502/],
    ["418 with an unknown type", "api_error", httpError(418, "teapot_error", "no"), /answered 418/],
    [
      "an SSE error event",
      "server_error",
      streamError(textTurn("cut short"), 2, "api_error", "Internal server error"),
      /\(api_error\): Internal server error/,
    ],
  ];
  it.each(cases)("%s → %s", async (_label, code, fault, message) => {
    const server = await mockServer([fault]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", maxRetries: 0 });
    const result = await agent.prompt("hi");
    expect(result).toMatchObject({ subtype: "error_during_execution", is_error: true });
    expect(result.error).toBeInstanceOf(APIError);
    expect(result.error).toMatchObject({ code });
    expect(result.error!.message).toMatch(message);
    // The obvious print of a failed run says why.
    expect(result.result).toBe(result.error!.message);
  });
});

describe("a tool whose handler fails is visible to the host", () => {
  it("a throwing tool: a system tool_error as the call ends, tool_errors in a run that still succeeds", async () => {
    const thrown = new Error("disk full");
    const save = tool("save", "Save", z.object({}), async () => {
      throw thrown;
    });
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "save", input: {}, id: "t1" }),
        toolTurn({ name: "save", input: {}, id: "t2" }),
        textTurn("I could not save it."),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [save] });
    const messages = await collect(agent.query("save it"));
    expect(settledTypes(messages)).toEqual([
      "system:init",
      "assistant",
      "system:tool_error",
      "user",
      "assistant",
      "system:tool_error",
      "user",
      "assistant",
      "result",
    ]);
    const event = messages.find(message => message.type === "system" && message.subtype === "tool_error");
    expect(event).toMatchObject({
      tool_name: "save",
      tool_use_id: "t1",
      turn: 1,
      reason: "threw",
      message: 'Tool "save" failed: disk full',
      error: thrown,
    });
    expect(messages.at(-1)).toMatchObject({ subtype: "success", tool_errors: { save: 2 } });
  });

  it("an invalid result is a failure; an error result the tool returns itself is not", async () => {
    const broken = tool("broken", "Broken", z.object({}), async () => 42 as never);
    const honest = tool("honest", "Honest", z.object({}), async () => ({
      content: "not found",
      isError: true,
    }));
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "broken", input: {} },
          { name: "honest", input: {} },
        ]),
        textTurn("done"),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [broken, honest] });
    const messages = await collect(agent.query("go"));
    const events = messages.filter(message => message.type === "system" && message.subtype === "tool_error");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tool_name: "broken", reason: "invalid_result" });
    expect(messages.at(-1)).toMatchObject({ subtype: "success", tool_errors: { broken: 1 } });
  });

  it("a run whose tools all worked has no tool_errors", async () => {
    const ok = tool("ok", "Ok", z.object({}), async () => ({ content: "fine" }));
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "ok", input: {} }), textTurn("done")],
    });
    const result = await createBareAgent({ model: "m", modelClient: client, tools: [ok] }).prompt("go");
    expect(result.subtype).toBe("success");
    expect(result).not.toHaveProperty("tool_errors");
  });
});

describe("structured output: maxOutputAttempts stops a submission that never validates", () => {
  const schema = z.object({ version: z.string(), highlights: z.array(z.string()).min(1) });
  const alwaysInvalid = () => toolTurn({ name: "submit_output", input: { version: 3 } });

  it("stops at the default (3) with error_invalid_output, saying what was invalid", async () => {
    const client = createScriptedModelClient({ respond: alwaysInvalid });
    const agent = createBareAgent({ model: "m", modelClient: client, outputSchema: schema });
    const result = await agent.prompt("Release notes, please.");
    expect(result).toMatchObject({ subtype: "error_invalid_output", is_error: true, num_turns: 3 });
    expect(client.requests).toHaveLength(3); // not maxTurns (100) requests
    expect(result.error).toBeInstanceOf(InvalidOutputError);
    expect(result.error).toMatchObject({ code: "invalid_output", attempts: 3 });
    const error = result.error as InvalidOutputError;
    expect(error.issues).toMatch(/version/);
    expect(error.issues).toMatch(/highlights/);
    expect(error.message).toMatch(/raise maxOutputAttempts/);
    expect(error.message).not.toMatch(/Raise maxTurns/);
    expect(result.result).toBe(error.message);
    expect(findHistoryProblem(await agent.getHistory())).toBeUndefined();
  });

  it("is configurable, counts a submit_output that is not alone, and does not end a run that recovers", async () => {
    const one = createScriptedModelClient({ respond: alwaysInvalid });
    const strict = createBareAgent({
      model: "m",
      modelClient: one,
      outputSchema: schema,
      maxOutputAttempts: 1,
    });
    expect(await strict.prompt("go")).toMatchObject({ subtype: "error_invalid_output", num_turns: 1 });

    const noop = tool("noop", "noop", z.object({}), async () => ({ content: "" }));
    const crowded = createScriptedModelClient({
      respond: () =>
        toolTurn([
          { name: "noop", input: {} },
          { name: "submit_output", input: { version: "1", highlights: ["x"] } },
        ]),
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: crowded,
      outputSchema: schema,
      tools: [noop],
      maxOutputAttempts: 2,
    });
    const result = await agent.prompt("go");
    expect(result).toMatchObject({ subtype: "error_invalid_output", num_turns: 2 });
    expect((result.error as InvalidOutputError).issues).toMatch(/together with other tools/);

    const recovers = createScriptedModelClient({
      script: [
        alwaysInvalid(),
        alwaysInvalid(),
        toolTurn({ name: "submit_output", input: { version: "1.0", highlights: ["faster"] } }),
      ],
    });
    const fixed = await createBareAgent({ model: "m", modelClient: recovers, outputSchema: schema }).prompt(
      "go",
    );
    expect(fixed).toMatchObject({
      subtype: "success",
      structuredResult: { version: "1.0", highlights: ["faster"] },
    });
  });

  it("rejects an invalid maxOutputAttempts at assembly", () => {
    expect(() =>
      createBareAgent({ model: "m", modelClient: createScriptedModelClient(), maxOutputAttempts: 0 }),
    ).toThrow(/maxOutputAttempts must be a positive integer/);
  });
});

describe("throwOnError: the thrown style", () => {
  it("prompt() rejects with the typed error, which carries the result; success and 'interrupted' do not throw", async () => {
    const server = await mockServer([unauthorized(), textTurn("fine")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", throwOnError: true });
    const error = await agent.prompt("hi").then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ code: "authentication_error", status: 401 });
    const result = (error as APIError).result!;
    expect(result).toMatchObject({ type: "result", subtype: "error_during_execution", num_turns: 1 });
    expect(result.error).toBe(error);
    expect(() => JSON.stringify(result)).not.toThrow(); // error.result is not enumerable: no cycle
    expect((await agent.prompt("again")).result).toBe("fine");

    const interrupted = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("slow", { chunkDelayMs: 5 })] }),
      throwOnError: true,
    });
    const messages: SDKMessage[] = [];
    for await (const message of interrupted.query("go")) {
      messages.push(message);
      if (message.type === "stream_event") interrupted.interrupt();
    }
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "interrupted" });
  });

  it("query() yields the messages before the failure, then throws instead of yielding the result", async () => {
    const client = createScriptedModelClient({ respond: () => toolTurn({ name: "noop", input: {} }) });
    const noop = tool("noop", "noop", z.object({}), async () => ({ content: "" }));
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [noop], maxTurns: 2 });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const message of agent.query("go", { throwOnError: true })) seen.push(message.type);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(MaxTurnsError);
    expect(seen).toContain("user");
    expect(seen).not.toContain("result");
    // The query option overrides the agent's default both ways.
    expect(await agent.prompt("go", { throwOnError: false })).toMatchObject({ subtype: "error_max_turns" });
    expect(findHistoryProblem(await agent.getHistory())).toBeUndefined();
  });

  it("a delegated child made with throwOnError still reports its failure to the parent as a tool result", async () => {
    const child = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [httpError(404, "not_found_error", "model: nope")] }),
      throwOnError: true,
    });
    const parentClient = createScriptedModelClient({
      script: [toolTurn({ name: "helper", input: { task: "t" } }), textTurn("The helper failed.")],
    });
    const parent = createBareAgent({
      model: "m",
      modelClient: parentClient,
      tools: [agentTool("helper", child)],
    });
    expect(await parent.prompt("go")).toMatchObject({ subtype: "success", result: "The helper failed." });
    const answer = parentClient.requests[1]!.messages.at(-1)!.content as Array<{
      content: string;
      is_error: boolean;
    }>;
    expect(answer[0]!.is_error).toBe(true);
    expect(answer[0]!.content).toMatch(/model: nope/);
  });

  it("a consumer that stops the query early is not thrown at", async () => {
    let started!: () => void;
    const running = new Promise<void>(resolve => {
      started = resolve;
    });
    const hangs = tool("hangs", "hangs", z.object({}), () => {
      started();
      return new Promise(() => {});
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [toolTurn({ name: "hangs", input: {} })] }),
      tools: [hangs],
      toolAbortGraceMs: 20,
      throwOnError: true,
    });
    const query = agent.query("go");
    let step = await query.next();
    while (!step.done && step.value.type !== "assistant") step = await query.next();
    const pending = query.next();
    await running;
    await expect(query.return(undefined)).resolves.toEqual({ done: true, value: undefined });
    await expect(pending).resolves.toBeDefined();
  });
});

describe("baseURL must be an absolute http(s) URL", () => {
  const { createAgent } = createAgentFactory();
  it.each([
    ["api.deepseek.com/anthropic", /Add the scheme: "https:\/\/api\.deepseek\.com\/anthropic"/],
    ["localhost:8080", /Add the scheme: "https:\/\/localhost:8080"/],
    ["ftp://example.com", /absolute http\(s\) URL/],
    ["", /absolute http\(s\) URL/],
  ])("%j is refused at assembly, with the fix", (baseURL, fix) => {
    for (const create of [createBareAgent, createAgent]) {
      expect(() => create({ apiKey: "k", model: "m", baseURL })).toThrow(InvalidOptionError);
      expect(() => create({ apiKey: "k", model: "m", baseURL })).toThrow(fix);
    }
    expect(() => createAnthropicModelClient({ baseURL })).toThrow(fix);
  });

  it("a bad ANTHROPIC_BASE_URL is named; a good URL, http or https, is accepted", () => {
    const saved = process.env.ANTHROPIC_BASE_URL;
    process.env.ANTHROPIC_BASE_URL = "api.anthropic.com";
    try {
      expect(() => createBareAgent({ apiKey: "k", model: "m" })).toThrow(
        /ANTHROPIC_BASE_URL environment variable/,
      );
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_BASE_URL;
      else process.env.ANTHROPIC_BASE_URL = saved;
    }
    for (const baseURL of ["http://127.0.0.1:8080", "https://api.deepseek.com/anthropic"]) {
      expect(() => createBareAgent({ apiKey: "k", model: "m", baseURL })).not.toThrow();
    }
    expect(() => createAnthropicModelClient({ baseURL: "https://x.test", unknown: 1 } as never)).toThrow(
      /unknown option "unknown"/,
    );
  });
});

describe("the consumer leaving ends the query with its own reason", () => {
  it("an early return() while a request is in flight is recorded as that, not as a provider failure", async () => {
    const server = await mockServer([textTurn("never", { delayMs: 60_000 })]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const query = agent.query("go");
    expect((await query.next()).value).toMatchObject({ type: "system", subtype: "init" });
    const pending = query.next();
    await expect.poll(() => server.requests.length).toBe(1);
    await query.return(undefined);
    const last = (await pending).value as SDKResultMessage;
    expect(last).toMatchObject({ type: "result", subtype: "error_abort" });
    expect(last.error).toBeInstanceOf(AbortError);
  });
});
