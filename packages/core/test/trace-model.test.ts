// The trace model (core seams issue, R1–R3): typed, versioned events a hosted tracer can map one to one —
// a tool_result per call when it ends, delegated runs nested by parent_run_id and parent_tool_use_id, redaction
// that reaches every event carrying content, and old JSONL files still readable.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModelClient, textTurn, toolTurn, turn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  agentTool,
  type ContextTraceEvent,
  createAgentFactory,
  createBareAgent,
  createJsonlContextTracer,
  defineContextTracer,
  readContextTrace,
  TRACE_EVENT_VERSION,
  tool,
} from "../src/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-trace-model-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function memoryTracer() {
  const events: ContextTraceEvent[] = [];
  return { events, tracer: defineContextTracer({ onEvent: event => void events.push(event) }) };
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
const timed = (name: string, ms: number) =>
  tool(
    name,
    `waits ${ms} ms`,
    z.object({}),
    async () => {
      await sleep(ms);
      return { content: `${name} done` };
    },
    { isConcurrencySafe: () => true },
  );

describe("tool_result per call", () => {
  it("is emitted when each call ends, with its own start and end times, not all after the batch", async () => {
    const { events, tracer } = memoryTracer();
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "slow", input: {}, id: "t_slow" },
          { name: "fast", input: {}, id: "t_fast" },
        ]),
        textTurn("done"),
      ],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [timed("slow", 80), timed("fast", 5)],
      tracer,
    });
    await agent.prompt("go");

    const results = events.filter(
      (event): event is ContextTraceEvent<"tool_result"> => event.type === "tool_result",
    );
    expect(results.map(event => event.data.tool_use_id)).toEqual(["t_fast", "t_slow"]);
    const [fast, slow] = results.map(event => event.data);
    expect(Date.parse(fast!.ended_at)).toBeLessThan(Date.parse(slow!.ended_at));
    expect(slow!.duration_ms).toBeGreaterThanOrEqual(60);
    expect(Date.parse(slow!.ended_at) - Date.parse(slow!.started_at)).toBe(slow!.duration_ms);
    expect(slow).toMatchObject({
      name: "slow",
      kind: "tool",
      is_error: false,
      turn: 1,
      content: "slow done",
    });
    // The fast call's result is recorded while the slow one is still running.
    expect(Date.parse(results[0]!.time)).toBeLessThan(Date.parse(slow!.ended_at));
  });

  it("every event carries the format version, and llm turns carry their start time and duration", async () => {
    const { events, tracer } = memoryTracer();
    const client = createScriptedModelClient({ script: [textTurn("hi", { delayMs: 20 })] });
    await createBareAgent({ model: "m", modelClient: client, tracer }).prompt("hello");
    expect(new Set(events.map(event => event.v))).toEqual(new Set([TRACE_EVENT_VERSION]));
    const request = events.find(event => event.type === "model_request")!;
    const assistant = events.find(
      (event): event is ContextTraceEvent<"assistant_message"> => event.type === "assistant_message",
    )!;
    expect(assistant.data.started_at).toBe(request.time);
    expect(assistant.data.duration_ms).toBeGreaterThanOrEqual(15);
    expect(assistant.data.usage).toEqual(
      expect.objectContaining({
        input_tokens: expect.any(Number),
        cache_read_input_tokens: expect.any(Number),
      }),
    );
  });
});

describe("delegated runs nest under the tool call that started them", () => {
  it("concurrent children carry parent_run_id and their own parent_tool_use_id", async () => {
    const { events, tracer } = memoryTracer();
    const { defineAgent } = createAgentFactory();
    const childClient = createScriptedModelClient({
      respond: request => textTurn(`child saw ${JSON.stringify(request.messages[0]!.content)}`),
    });
    const spec = defineAgent({ model: "m", name: "helper", modelClient: childClient });
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "helper", input: { task: "A" }, id: "call_a" },
          { name: "helper", input: { task: "B" }, id: "call_b" },
        ]),
        textTurn("both done"),
      ],
    });
    const parent = createBareAgent({
      model: "m",
      name: "lead",
      modelClient: client,
      tools: [agentTool("helper", spec)],
    });
    await parent.prompt("delegate", { tracer });

    const parentRun = events.find(event => event.source === "lead")!.run_id;
    const childStarts = events.filter(event => event.type === "run_start" && event.source === "helper");
    expect(childStarts).toHaveLength(2);
    for (const start of childStarts) expect(start.parent_run_id).toBe(parentRun);
    const byCall = new Map(childStarts.map(start => [start.parent_tool_use_id, start.run_id]));
    expect([...byCall.keys()].sort()).toEqual(["call_a", "call_b"]);
    // Each child's prompt went to the run recorded under its own call.
    const promptOf = (runId: string) =>
      (
        events.find(
          event => event.run_id === runId && event.type === "user_message",
        ) as ContextTraceEvent<"user_message">
      ).data.content as string;
    expect(promptOf(byCall.get("call_a")!)).toContain("A");
    expect(promptOf(byCall.get("call_b")!)).toContain("B");
    // Every event of a child run carries the same nesting.
    for (const event of events.filter(e => e.source === "helper")) {
      expect(event.parent_tool_use_id).toBe([...byCall].find(([, run]) => run === event.run_id)![0]);
    }
  });
});

describe("redaction through onTraceEvent", () => {
  const SECRET = "sk-live-4242";

  it("reaches the prompt, the request, the assistant message, tool input, tool result and the result", async () => {
    const path = join(dir, "trace.jsonl");
    const tracer = createJsonlContextTracer({ path });
    const echo = tool("echo", "echoes", z.object({ value: z.string() }), async ({ value }) => ({
      content: value,
    }));
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "echo", input: { value: SECRET } }, { text: `I see ${SECRET}` }),
        textTurn(`final ${SECRET}`),
      ],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [echo],
      tracer,
      hooks: {
        onTraceEvent: ({ event }) => JSON.parse(JSON.stringify(event).replaceAll(SECRET, "[redacted]")),
      },
    });
    const result = await agent.prompt(`my key is ${SECRET}`);
    await tracer.close!();

    expect(result.result).toBe(`final ${SECRET}`); // redaction shapes traces, not the run
    const text = await readFile(path, "utf8");
    expect(text).not.toContain(SECRET);
    const types = readContextTrace(text).map(event => event.type);
    for (const type of [
      "user_message",
      "model_request",
      "assistant_message",
      "tool_use",
      "tool_result",
      "result",
    ]) {
      expect(types).toContain(type);
    }
    expect(text.split("[redacted]").length - 1).toBeGreaterThanOrEqual(6);
  });

  it("a parent's redaction also covers its delegated children's events on the query tracer", async () => {
    const { events, tracer } = memoryTracer();
    const child = createBareAgent({
      model: "m",
      name: "child",
      modelClient: createScriptedModelClient({ script: [textTurn(`child knows ${SECRET}`)] }),
    });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "child", input: { task: `use ${SECRET}` } }), textTurn("ok")],
    });
    const parent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [agentTool("child", child)],
      hooks: {
        onTraceEvent: ({ event }) => JSON.parse(JSON.stringify(event).replaceAll(SECRET, "[redacted]")),
      },
    });
    await parent.prompt("go", { tracer });
    const childEvents = events.filter(event => event.source === "child");
    expect(childEvents.length).toBeGreaterThan(3);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });

  it("a throwing onTraceEvent propagates out of query() (a redaction that fails quietly would leak)", async () => {
    const { tracer } = memoryTracer();
    const agent = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("x")] }),
      tracer,
      hooks: {
        onTraceEvent: () => {
          throw new Error("redactor down");
        },
      },
    });
    await expect(agent.prompt("go")).rejects.toThrow("redactor down");
  });
});

describe("readContextTrace", () => {
  it("reads current files and upgrades version-0 events; skips torn lines; passes unknown types through", async () => {
    const v0 = [
      {
        session_id: "s",
        run_id: "r",
        seq: 0,
        source: "agent",
        type: "user_message",
        time: "2026-01-01T00:00:00.000Z",
        data: { content: "hi" },
      },
      {
        session_id: "s",
        run_id: "r",
        seq: 1,
        source: "agent",
        type: "tool_result",
        time: "2026-01-01T00:00:01.000Z",
        data: { type: "tool_result", tool_use_id: "t", content: "ok", name: "add" },
      },
      {
        session_id: "s",
        run_id: "r",
        seq: 2,
        source: "team",
        type: "team_message",
        time: "2026-01-01T00:00:02.000Z",
        data: { x: 1 },
      },
    ];
    const path = join(dir, "old.jsonl");
    await writeFile(path, `${v0.map(event => JSON.stringify(event)).join("\n")}\n{"torn":`);
    const events = readContextTrace(await readFile(path, "utf8"));
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({
      v: 0,
      type: "user_message",
      data: { content: "hi", origin: "prompt" },
    });
    expect(events[1]!.data).toEqual({
      tool_use_id: "t",
      content: "ok",
      name: "add",
      kind: "tool",
      is_error: false,
      turn: 0,
      started_at: "2026-01-01T00:00:01.000Z",
      ended_at: "2026-01-01T00:00:01.000Z",
      duration_ms: 0,
    });
    expect(events[2]).toMatchObject({ type: "team_message", data: { x: 1 } });

    const current = join(dir, "new.jsonl");
    const tracer = createJsonlContextTracer({ path: current });
    await createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [turn("hello")] }),
      tracer,
    }).prompt("x");
    await tracer.close!();
    const read = readContextTrace(await readFile(current, "utf8"));
    expect(read.map(event => event.type)).toEqual([
      "run_start",
      "user_message",
      "model_request",
      "assistant_message",
      "result",
    ]);
    expect(read.every(event => event.v === TRACE_EVENT_VERSION)).toBe(true);
  });
});
