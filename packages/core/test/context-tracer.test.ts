// Context tracing (R1–R3): the ContextTracer port, the JSONL tracer and the composite tracer.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModelClient, invalidRequest, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  type ContextTraceEvent,
  type ContextTracer,
  type ContextTracerMethods,
  createBareAgent,
  createCompositeContextTracer,
  createJsonlContextTracer,
  defineContextTracer,
  type FailurePolicyOptions,
  InvalidOptionError,
  type ModelMessage,
  TRACE_EVENT_VERSION,
  tool,
} from "../src/index.js";
import { collect, mockServer, plainMessages } from "./helpers.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-lattice-trace-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const add = tool("add", "Add two numbers", z.object({ a: z.number(), b: z.number() }), async ({ a, b }) => ({
  content: String(a + b),
}));

const TOOL_QUERY_TYPES = [
  "run_start",
  "user_message",
  "model_request",
  "assistant_message",
  "tool_use",
  "tool_result",
  "model_request",
  "assistant_message",
  "result",
];

/** A scripted client for one tool-using query: add(2, 3), then "The sum is 5.". */
function toolClient() {
  return createScriptedModelClient({
    script: [toolTurn({ name: "add", input: { a: 2, b: 3 }, id: "toolu_add" }), textTurn("The sum is 5.")],
  });
}

/** A tracer that records every event it receives. */
function recorder(options?: FailurePolicyOptions, methods: Partial<ContextTracerMethods> = {}) {
  const events: ContextTraceEvent[] = [];
  const tracer = defineContextTracer({ onEvent: event => void events.push(event), ...methods }, options);
  return { events, tracer };
}

function traceEvent(seq: number): ContextTraceEvent {
  return {
    v: TRACE_EVENT_VERSION,
    session_id: "s",
    run_id: "r",
    seq,
    source: "agent",
    type: "run_start",
    time: new Date().toISOString(),
    data: { model: "m", tools: [] },
  };
}

async function eventsIn(path: string): Promise<ContextTraceEvent[]> {
  return (await readFile(path, "utf8"))
    .split("\n")
    .filter(line => line !== "")
    .map(line => JSON.parse(line) as ContextTraceEvent);
}

describe("createJsonlContextTracer (R2)", () => {
  it("writes one line per event with exactly v, session_id, run_id, seq, source, type, time and data", async () => {
    const path = join(dir, "session.jsonl");
    const tracer = createJsonlContextTracer({ path });
    const agent = createBareAgent({ model: "m", modelClient: toolClient(), tools: [add], tracer });
    await agent.prompt("What is 2+3?");
    await tracer.flush!();

    const events = await eventsIn(path);
    expect(events).toHaveLength(TOOL_QUERY_TYPES.length);
    for (const [index, event] of events.entries()) {
      expect(Object.keys(event).sort()).toEqual([
        "data",
        "run_id",
        "seq",
        "session_id",
        "source",
        "time",
        "type",
        "v",
      ]);
      expect(event.v).toBe(TRACE_EVENT_VERSION);
      expect(event.seq).toBe(index);
      expect(event.session_id).toBe(agent.sessionId);
      expect(event.run_id).toBe(events[0]!.run_id);
      expect(event.source).toBe("agent");
      expect(new Date(event.time).toISOString()).toBe(event.time);
      expect(typeof event.data).toBe("object");
    }
  });

  it("records run_start … result in loop order for a tool-using query", async () => {
    const path = join(dir, "session.jsonl");
    const tracer = createJsonlContextTracer({ path });
    const agent = createBareAgent({ model: "m", modelClient: toolClient(), tools: [add], tracer });
    await agent.prompt("What is 2+3?");
    await tracer.flush!();

    expect((await eventsIn(path)).map(event => event.type)).toEqual(TOOL_QUERY_TYPES);
  });

  it("event data carries the prompt, the request, the assistant turns, the tool call and its result", async () => {
    const path = join(dir, "session.jsonl");
    const tracer = createJsonlContextTracer({ path });
    const agent = createBareAgent({ model: "m", modelClient: toolClient(), tools: [add], tracer });
    await agent.prompt("What is 2+3?");
    await tracer.flush!();

    const [runStart, user, request, assistant, use, result, , , end] = await eventsIn(path);
    expect(runStart!.data).toEqual({ model: "m", tools: ["add"] });
    expect(user!.data).toEqual({ content: "What is 2+3?", origin: "prompt" });
    expect(request!.data).toMatchObject({ turn: 1, model: "m", tools: ["add"] });
    expect(plainMessages((request!.data as { messages: unknown }).messages)).toEqual([
      { role: "user", content: "What is 2+3?" },
    ]);
    expect(assistant!.data).toMatchObject({
      turn: 1,
      stop_reason: "tool_use",
      message: { role: "assistant" },
    });
    expect(use!.data).toEqual({ id: "toolu_add", name: "add", input: { a: 2, b: 3 }, turn: 1 });
    expect(result!.data).toMatchObject({
      tool_use_id: "toolu_add",
      content: "5",
      name: "add",
      kind: "tool",
      is_error: false,
      turn: 1,
    });
    expect(end!.data).toMatchObject({
      subtype: "success",
      is_error: false,
      result: "The sum is 5.",
      num_turns: 2,
    });
  });

  it("two queries of the same agent get different run_ids under the same session_id, each seq from 0", async () => {
    const path = join(dir, "session.jsonl");
    const tracer = createJsonlContextTracer({ path });
    const client = createScriptedModelClient({ script: [textTurn("one"), textTurn("two")] });
    const agent = createBareAgent({ model: "m", modelClient: client, tracer });
    await agent.prompt("first");
    await agent.prompt("second");
    await tracer.flush!();

    const events = await eventsIn(path);
    const runs = [...new Set(events.map(event => event.run_id))];
    expect(runs).toHaveLength(2);
    expect(new Set(events.map(event => event.session_id))).toEqual(new Set([agent.sessionId]));
    for (const run of runs) {
      const seqs = events.filter(event => event.run_id === run).map(event => event.seq);
      expect(seqs).toEqual(seqs.map((_, index) => index));
    }
  });

  it("a compaction between turns is recorded as a compaction event", async () => {
    const small = { input_tokens: 100, output_tokens: 10 };
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "add", input: { a: 1, b: 1 } }, { usage: small }),
        toolTurn(
          { name: "add", input: { a: 2, b: 2 } },
          { usage: { input_tokens: 150_000, output_tokens: 10 } },
        ),
        textTurn("SUMMARY: two sums.", { usage: small }),
        textTurn("Done.", { usage: small }),
      ],
    });
    const { events, tracer } = recorder();
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [add],
      tracer,
      autoCompact: { thresholdTokens: 100_000, keepRecentMessages: 2 },
    });
    await agent.prompt("Two sums.");

    const types = events.map(event => event.type);
    const compaction = events.find(event => event.type === "compaction")!;
    expect(compaction.data).toMatchObject({ trigger: "threshold", summary: "SUMMARY: two sums." });
    expect(types.indexOf("compaction")).toBeGreaterThan(types.lastIndexOf("tool_result"));
    expect(types.slice(types.indexOf("compaction") + 1)).toEqual([
      "model_request",
      "assistant_message",
      "result",
    ]);
  });

  it("uses the agent's name as the event source", async () => {
    const { events, tracer } = recorder();
    const agent = createBareAgent({
      model: "m",
      name: "researcher",
      modelClient: createScriptedModelClient({ script: [textTurn("ok")] }),
      tracer,
    });
    await agent.prompt("hi");
    expect(new Set(events.map(event => event.source))).toEqual(new Set(["researcher"]));
  });

  it("creates missing parent directories", async () => {
    const path = join(dir, "a", "b", "trace.jsonl");
    const tracer = createJsonlContextTracer({ path });
    const agent = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("ok")] }),
      tracer,
    });
    await agent.prompt("hi");
    await tracer.close!();
    expect((await eventsIn(path)).map(event => event.type)).toEqual([
      "run_start",
      "user_message",
      "model_request",
      "assistant_message",
      "result",
    ]);
  });

  it("refuses events after close()", async () => {
    const tracer = createJsonlContextTracer({ path: join(dir, "closed.jsonl") });
    await tracer.close!();
    expect(() => tracer.onEvent(traceEvent(0))).toThrow(InvalidOptionError);
  });

  it("requires a path", () => {
    expect(() => createJsonlContextTracer({} as never)).toThrow(/"path" is required/);
  });

  it("rejects unknown options", () => {
    expect(() => createJsonlContextTracer({ path: join(dir, "t.jsonl"), pth: "x" } as never)).toThrow(
      /unknown option "pth"/,
    );
  });

  it("with failOnError: true, a failed write propagates out of query() at the event that hit it", async () => {
    // The path is a directory: appending to it fails with EISDIR. With failOnError each event waits for its write.
    const tracer = createJsonlContextTracer({ path: dir, failOnError: true });
    const client = createScriptedModelClient({ script: [textTurn("ok")] });
    const agent = createBareAgent({ model: "m", modelClient: client, tracer });
    await expect(agent.prompt("hi")).rejects.toMatchObject({ code: "EISDIR" });
    expect(client.requests).toHaveLength(0); // it failed at run_start, before any model request
  });

  it("without failOnError, a failed write is swallowed and the query succeeds", async () => {
    const tracer = createJsonlContextTracer({ path: dir });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "add", input: { a: 1, b: 1 } }), textTurn("2")],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [add], tracer });
    expect(await agent.prompt("1+1?")).toMatchObject({ subtype: "success", result: "2" });
    await tracer.flush!().catch(() => {}); // let the buffered writes settle before the directory is removed
  });

  it("without failOnError, flush() and close() do not throw a failed write", async () => {
    const tracer = createJsonlContextTracer({ path: dir });
    const agent = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("ok")] }),
      tracer,
    });
    await agent.prompt("hi");
    await expect(tracer.flush!()).resolves.toBeUndefined();
    await agent.prompt("again").catch(() => {});
    await expect(tracer.close!()).resolves.toBeUndefined();
  });

  it("recovers once the parent directory can be created after a failed mkdir", async () => {
    const blocker = join(dir, "blocked");
    await writeFile(blocker, "a file where the directory should be");
    const jsonl = createJsonlContextTracer({ path: join(blocker, "trace.jsonl") });
    const sink = createCompositeContextTracer([jsonl]); // applies the default (swallowing) policy
    await sink.onEvent(traceEvent(0));
    await sink.flush!(); // waits for the failed write; the failure is swallowed

    await rm(blocker);
    await sink.onEvent(traceEvent(1));
    await jsonl.flush!();
    expect((await eventsIn(join(blocker, "trace.jsonl"))).map(event => event.seq)).toEqual([1]);
  });
});

describe("tracer wiring (R1)", () => {
  it("the agent's tracer and the query's tracer both receive every event", async () => {
    const onAgent = recorder();
    const onQuery = recorder();
    const agent = createBareAgent({
      model: "m",
      modelClient: toolClient(),
      tools: [add],
      tracer: onAgent.tracer,
    });
    await agent.prompt("What is 2+3?", { tracer: onQuery.tracer });

    expect(onAgent.events.map(event => event.type)).toEqual(TOOL_QUERY_TYPES);
    expect(onQuery.events).toEqual(onAgent.events);
  });

  it("a query tracer applies to that query only", async () => {
    const onQuery = recorder();
    const client = createScriptedModelClient({ script: [textTurn("one"), textTurn("two")] });
    const agent = createBareAgent({ model: "m", modelClient: client });
    await agent.prompt("first", { tracer: onQuery.tracer });
    const count = onQuery.events.length;
    await agent.prompt("second");
    expect(count).toBeGreaterThan(0);
    expect(onQuery.events).toHaveLength(count);
  });

  it("the same tracer given to the agent and to the query receives each event once", async () => {
    const { events, tracer } = recorder();
    const agent = createBareAgent({ model: "m", modelClient: toolClient(), tools: [add], tracer });
    await agent.prompt("What is 2+3?", { tracer });

    expect(events.map(event => event.type)).toEqual(TOOL_QUERY_TYPES);
    expect(events.map(event => event.seq)).toEqual(TOOL_QUERY_TYPES.map((_, index) => index));
  });
});

describe("defineContextTracer (R1)", () => {
  it("returns methods only: onEvent, flush and close, with no failOnError field", () => {
    const keys = Object.keys(defineContextTracer({ onEvent: () => {} }, { failOnError: true })).sort();
    expect(keys).toEqual(["close", "flush", "onEvent"]);
    expect(
      Object.keys(createJsonlContextTracer({ path: join(dir, "t.jsonl"), failOnError: true })).sort(),
    ).toEqual(keys);
  });

  it("flush() and close() call the sink's own methods", async () => {
    const calls: string[] = [];
    const tracer = defineContextTracer({
      onEvent: () => {},
      flush: () => void calls.push("flush"),
      close: async () => void calls.push("close"),
    });
    await tracer.flush!();
    await tracer.close!();
    expect(calls).toEqual(["flush", "close"]);
  });

  it("flush() and close() resolve when the sink has neither", async () => {
    const bare = defineContextTracer({ onEvent: () => {} });
    await expect(bare.flush!()).resolves.toBeUndefined();
    await expect(bare.close!()).resolves.toBeUndefined();
  });

  it("a missing onEvent throws InvalidOptionError naming it", () => {
    const define = () => defineContextTracer({ flush: () => {} } as never);
    expect(define).toThrow(InvalidOptionError);
    expect(define).toThrow(/onEvent/);
  });

  it("an unknown key throws the strict unknown-option message", () => {
    expect(() => defineContextTracer({ onEvent: () => {}, failOnError: true } as never)).toThrow(
      /defineContextTracer\(\): unknown option "failOnError"/,
    );
  });

  it("an unknown key in the options argument throws the strict unknown-option message", () => {
    expect(() => defineContextTracer({ onEvent: () => {} }, { failOnErorr: true } as never)).toThrow(
      /defineContextTracer\(\) options: unknown option "failOnErorr"/,
    );
  });

  it("a flush or close that is not a function throws InvalidOptionError", () => {
    expect(() => defineContextTracer({ onEvent: () => {}, flush: "soon" } as never)).toThrow(
      /flush must be a function/,
    );
    expect(() => defineContextTracer({ onEvent: () => {}, close: 1 } as never)).toThrow(
      /close must be a function/,
    );
  });

  it("a throwing onEvent is swallowed by default: the query succeeds", async () => {
    let calls = 0;
    const tracer = defineContextTracer({
      onEvent: () => {
        calls += 1;
        throw new Error("sink down");
      },
    });
    const agent = createBareAgent({ model: "m", modelClient: toolClient(), tools: [add], tracer });
    const result = await agent.prompt("What is 2+3?");
    expect(result).toMatchObject({ subtype: "success", result: "The sum is 5." });
    expect(calls).toBe(TOOL_QUERY_TYPES.length);
  });

  it("a throwing onEvent with { failOnError: true } makes the query reject", async () => {
    const tracer = defineContextTracer(
      {
        onEvent: () => {
          throw new Error("sink down");
        },
      },
      { failOnError: true },
    );
    const agent = createBareAgent({ model: "m", modelClient: toolClient(), tools: [add], tracer });
    await expect(collect(agent.query("What is 2+3?"))).rejects.toThrow("sink down");
  });

  it("an async onEvent rejection with { failOnError: true } rejects prompt() as well", async () => {
    const tracer = defineContextTracer(
      {
        onEvent: async event => {
          if (event.type === "tool_result") throw new Error("late sink failure");
        },
      },
      { failOnError: true },
    );
    const agent = createBareAgent({ model: "m", modelClient: toolClient(), tools: [add], tracer });
    await expect(agent.prompt("What is 2+3?")).rejects.toThrow("late sink failure");
  });

  it("a plain object tracer not made by defineContextTracer is rejected by createBareAgent", () => {
    const plain = { onEvent: () => {} } as ContextTracer;
    const create = () =>
      createBareAgent({ model: "m", modelClient: createScriptedModelClient(), tracer: plain });
    expect(create).toThrow(InvalidOptionError);
    expect(create).toThrow(/AgentOptions\.tracer: tracers must be created with defineContextTracer\(\)/);
  });

  it("a plain object tracer passed per query is rejected", () => {
    const agent = createBareAgent({ model: "m", modelClient: createScriptedModelClient() });
    expect(() => agent.query("hi", { tracer: { onEvent: () => {} } as ContextTracer })).toThrow(
      /QueryOptions\.tracer: tracers must be created with defineContextTracer\(\)/,
    );
  });
});

describe("createCompositeContextTracer (R3)", () => {
  it("fans each event out to its members in order", async () => {
    const log: string[] = [];
    const member = (name: string) =>
      defineContextTracer({ onEvent: event => void log.push(`${name}:${event.seq}:${event.type}`) });
    const tracer = createCompositeContextTracer([member("a"), member("b")]);
    const agent = createBareAgent({ model: "m", modelClient: toolClient(), tools: [add], tracer });
    await agent.prompt("What is 2+3?");

    expect(log).toEqual(TOOL_QUERY_TYPES.flatMap((type, seq) => [`a:${seq}:${type}`, `b:${seq}:${type}`]));
  });

  it("a failing member with the default policy does not stop the next member from receiving every event", async () => {
    const failing = defineContextTracer({
      onEvent: () => {
        throw new Error("member down");
      },
    });
    const { events, tracer: healthy } = recorder();
    const agent = createBareAgent({
      model: "m",
      modelClient: toolClient(),
      tools: [add],
      tracer: createCompositeContextTracer([failing, healthy]),
    });
    const result = await agent.prompt("What is 2+3?");
    expect(result.subtype).toBe("success");
    expect(events.map(event => event.type)).toEqual(TOOL_QUERY_TYPES);
  });

  it("a member with failOnError: true still propagates its failure through the composite", async () => {
    const strict = defineContextTracer(
      {
        onEvent: () => {
          throw new Error("strict member down");
        },
      },
      { failOnError: true },
    );
    const { tracer: healthy } = recorder();
    const agent = createBareAgent({
      model: "m",
      modelClient: toolClient(),
      tools: [add],
      tracer: createCompositeContextTracer([healthy, strict]),
    });
    await expect(agent.prompt("What is 2+3?")).rejects.toThrow("strict member down");
  });

  it("flush() and close() reach every member, even past a failing one", async () => {
    const calls: string[] = [];
    const failing = defineContextTracer({
      onEvent: () => {},
      flush: () => {
        throw new Error("flush failed");
      },
      close: () => {
        throw new Error("close failed");
      },
    });
    const ok = defineContextTracer({
      onEvent: () => {},
      flush: () => void calls.push("flush"),
      close: () => void calls.push("close"),
    });
    const composite = createCompositeContextTracer([failing, ok]);
    await composite.flush!();
    await composite.close!();
    expect(calls).toEqual(["flush", "close"]);
  });

  it("rejects members that were not made by a tracer factory", () => {
    expect(() => createCompositeContextTracer([{ onEvent: () => {} } as ContextTracer])).toThrow(
      /createCompositeContextTracer\(\)\[0\]: tracers must be created with defineContextTracer\(\)/,
    );
  });
});

describe("hooks run before the matching trace event (R2)", () => {
  it("an onToolResult hook that redacts → the tool_result event holds the redacted content", async () => {
    const secret = tool("secret", "Read the secret", z.object({}), async () => ({
      content: "password=hunter2",
    }));
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "secret", input: {}, id: "toolu_secret" }), textTurn("Done.")],
    });
    const { events, tracer } = recorder();
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [secret],
      tracer,
      hooks: {
        onToolResult: ({ result }) => ({ ...result, content: "[redacted]" }),
      },
    });
    await agent.prompt("Read it.");

    const traced = events.find(event => event.type === "tool_result")!;
    expect(traced.data).toMatchObject({ tool_use_id: "toolu_secret", content: "[redacted]", name: "secret" });
    expect(JSON.stringify(events)).not.toContain("hunter2");
  });

  it("an onModelRequest hook that trims messages → the model_request event holds the trimmed messages", async () => {
    const history: ModelMessage[] = [
      { role: "user", content: "old question" },
      { role: "assistant", content: [{ type: "text", text: "old answer" }] },
    ];
    const client = createScriptedModelClient({ script: [textTurn("fresh answer")] });
    const { events, tracer } = recorder();
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tracer,
      hooks: {
        onModelRequest: ({ messages }) => ({ messages: messages.slice(-1) }),
      },
    });
    await agent.replaceHistory(history);
    await agent.prompt("new question");

    const trimmed = [{ role: "user", content: "new question" }];
    expect(plainMessages(client.requests[0]!.messages)).toEqual(trimmed);
    const request = events.find(event => event.type === "model_request")!;
    expect(request.data.messages).toEqual(client.requests[0]!.messages);
  });
});

describe("errors in the trace (R2)", () => {
  it("an API error (400) produces an error event before the result, whose data has subtype error_during_execution", async () => {
    const server = await mockServer([invalidRequest("messages: roles must alternate")]);
    const { events, tracer } = recorder();
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tracer, maxRetries: 0 });
    const result = await agent.prompt("hi");
    expect(result.subtype).toBe("error_during_execution");

    expect(events.map(event => event.type)).toEqual([
      "run_start",
      "user_message",
      "model_request",
      "error",
      "result",
    ]);
    const error = events[3] as ContextTraceEvent<"error">;
    expect(error.data.error).toMatchObject({ name: "APIError", code: "invalid_request_error" });
    expect(String((error.data.error as { message: string }).message)).toContain("roles must alternate");
    expect(events[4]!.data).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      error: { name: "APIError", code: "invalid_request_error" },
    });
  });
});
