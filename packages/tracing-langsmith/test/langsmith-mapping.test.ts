// The mapping's edges, on the real pipeline: a model request that fails, event types the adapter does not know
// (team events, newer ones), runs still open when the tracer closes, and the injection points (RunTree, runTree)
// and options the factory takes.
import {
  type ContextTraceEvent,
  createBareAgent,
  InvalidOptionError,
  TRACE_EVENT_VERSION,
} from "@agent-lattice/core";
import { DEFAULT_QUIET_MS } from "@agent-lattice/core/internal";
import { invalidRequest, textTurn } from "@agent-lattice/testing";
import { RunTree, type RunTreeConfig } from "langsmith/run_trees";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLangSmithContextTracer } from "../src/index.js";
import { messageText, mockModel, receiver } from "./helpers.js";

function event<T extends ContextTraceEvent["type"]>(
  type: T,
  data: unknown,
  extra: Partial<ContextTraceEvent> & { seq: number },
): ContextTraceEvent {
  return {
    v: TRACE_EVENT_VERSION,
    session_id: "session-1",
    run_id: "run-1",
    source: "crew",
    time: new Date(Date.now() + extra.seq).toISOString(),
    type,
    data,
    ...extra,
  } as ContextTraceEvent;
}

describe("model turns that fail", () => {
  it("a rejected request is an llm run carrying the error, and the chain ends errored", async () => {
    const ls = await receiver();
    const model = await mockModel([invalidRequest("max_tokens: must be positive")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", name: "solo" });
    const tracer = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k" });
    const result = await agent.prompt("hi", { tracer });
    await tracer.close!();
    expect(result.subtype).toBe("error_during_execution");
    const runs = ls.list();
    expect(runs.map(run => `${run.run_type}:${run.name}`)).toEqual(["chain:solo", "llm:m"]);
    const [chain, llm] = runs;
    expect(llm!.error).toContain("max_tokens: must be positive");
    const sent = llm!.inputs?.messages as Array<{ role: string; content: unknown }>;
    expect(sent.map(message => [message.role, messageText(message)])).toEqual([["user", "hi"]]);
    expect(chain!.error).toContain("max_tokens: must be positive");
    expect(chain!.outputs).toMatchObject({ subtype: "error_during_execution", is_error: true });
  });
});

describe("events the adapter has no run type for (team events, newer types)", () => {
  it("are recorded as events on their run; close() ends a run still open, marked as such", async () => {
    const ls = await receiver();
    const tracer = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k" });
    await tracer.onEvent(event("run_start", { model: "lead-model", tools: ["worker"] }, { seq: 0 }));
    await tracer.onEvent(event("user_message", { content: "Go.", origin: "prompt" }, { seq: 1 }));
    await tracer.onEvent(
      event("team_message" as never, { subtype: "sent", team: "crew", message: { id: "m1" } }, { seq: 2 }),
    );
    await tracer.close!();
    const [run] = ls.list();
    expect(run).toMatchObject({ name: "crew", run_type: "chain" });
    expect(run!.error).toBe("the tracer was closed before the run ended");
    expect(run!.end_time).toBeDefined();
    expect(run!.events).toEqual([
      expect.objectContaining({
        name: "team_message",
        kwargs: { seq: 2, data: { subtype: "sent", team: "crew", message: { id: "m1" } } },
      }),
    ]);
  });

  it("events of a run whose start the tracer never saw are ignored", async () => {
    const ls = await receiver();
    const tracer = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k" });
    await tracer.onEvent(
      event("user_message", { content: "late", origin: "prompt" }, { seq: 1, run_id: "other" }),
    );
    await tracer.close!();
    expect(ls.runs.size).toBe(0);
  });
});

describe("injection points", () => {
  afterEach(() => {
    delete process.env.LANGSMITH_TRACING;
  });

  it("RunTree: the given constructor makes every root run (with the project, tags and client)", async () => {
    const ls = await receiver();
    const configs: RunTreeConfig[] = [];
    class RecordingRunTree extends RunTree {
      constructor(config: RunTreeConfig) {
        configs.push(config);
        super(config);
      }
    }
    const model = await mockModel([textTurn("hello")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", name: "greeter" });
    const tracer = createLangSmithContextTracer({
      apiUrl: ls.url,
      apiKey: "k",
      projectName: "injected",
      tags: ["t1"],
      RunTree: RecordingRunTree,
    });
    await agent.prompt("hi", { tracer });
    await tracer.close!();
    expect(configs).toHaveLength(1);
    expect(configs[0]).toMatchObject({
      name: "greeter",
      run_type: "chain",
      project_name: "injected",
      tags: ["agent-lattice", "t1"],
    });
    expect(configs[0]!.client).toBeDefined();
    expect(ls.list().map(run => run.name)).toEqual(["greeter", "m"]);
  });

  it("runTree: a factory receives each root's config (and the adapter's client)", async () => {
    const ls = await receiver();
    const seen: RunTreeConfig[] = [];
    const model = await mockModel([textTurn("hello")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", name: "greeter" });
    const tracer = createLangSmithContextTracer({
      apiUrl: ls.url,
      apiKey: "k",
      runTree: config => {
        seen.push(config);
        return new RunTree({ ...config, name: `custom-${config.name}` });
      },
    });
    await agent.prompt("hi", { tracer });
    await tracer.close!();
    expect(seen).toHaveLength(1);
    expect(ls.list().map(run => run.name)).toEqual(["custom-greeter", "m"]);
  });

  it("onEvent only queues: a burst of events reaches langsmith once they pause, never inside the burst", async () => {
    const ls = await receiver();
    const created: string[] = [];
    // An injected factory runs the engine in-process, where the batching is observable.
    const tracer = createLangSmithContextTracer({
      apiUrl: ls.url,
      apiKey: "k",
      runTree: config => {
        created.push(config.name);
        return new RunTree(config);
      },
    });
    await tracer.flush!(); // langsmith has loaded
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate"] });
    try {
      tracer.onEvent(event("run_start", { model: "m", tools: [] }, { seq: 0 }));
      vi.advanceTimersByTime(DEFAULT_QUIET_MS - 1);
      tracer.onEvent(event("user_message", { content: "hi", origin: "prompt" }, { seq: 1 }));
      vi.advanceTimersByTime(DEFAULT_QUIET_MS - 1);
      expect(created).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(created).toEqual(["crew"]);
    } finally {
      vi.useRealTimers();
    }
    await tracer.close!();
    expect(ls.list().map(run => run.name)).toEqual(["crew"]);
  });

  it("LANGSMITH_TRACING=false turns the tracer into a no-op", async () => {
    const ls = await receiver();
    process.env.LANGSMITH_TRACING = "false";
    const model = await mockModel([textTurn("hello")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m" });
    const tracer = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k" });
    await agent.prompt("hi", { tracer });
    await tracer.close!();
    expect(ls.requests).toHaveLength(0);
  });

  it("close() is final: later events fail (only a failOnError tracer reports it)", async () => {
    const ls = await receiver();
    const tolerant = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k" });
    await tolerant.close!();
    const model = await mockModel([textTurn("a"), textTurn("b")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m" });
    await expect(agent.prompt("hi", { tracer: tolerant })).resolves.toMatchObject({ subtype: "success" });
    const strict = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k", failOnError: true });
    await strict.close!();
    await expect(agent.prompt("hi", { tracer: strict })).rejects.toThrow(/tracer was closed/);
  });
});

describe("options", () => {
  it("an unknown option or a wrong type throws InvalidOptionError at creation", () => {
    expect(() => createLangSmithContextTracer({ projectname: "x" } as never)).toThrow(InvalidOptionError);
    expect(() => createLangSmithContextTracer({ projectname: "x" } as never)).toThrow(
      /unknown option "projectname"/,
    );
    expect(() => createLangSmithContextTracer({ tags: "a" as never })).toThrow(
      /tags must be an array of strings/,
    );
    expect(() => createLangSmithContextTracer({ apiUrl: "smith" })).toThrow(/apiUrl must be an absolute URL/);
    expect(() => createLangSmithContextTracer({ RunTree: {} as never })).toThrow(
      /RunTree must be a function/,
    );
    expect(() => createLangSmithContextTracer({ timeoutMs: 0 })).toThrow(
      /timeoutMs must be a positive integer/,
    );
    expect(() => createLangSmithContextTracer({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => createLangSmithContextTracer({ failOnError: "yes" as never })).toThrow(/failOnError/);
  });

  it("the tracer exposes methods only (failOnError is bound at creation)", () => {
    const tracer = createLangSmithContextTracer({ failOnError: true, apiUrl: "http://127.0.0.1:9" });
    expect(Object.keys(tracer).sort()).toEqual(["close", "flush", "onEvent"]);
    expect("failOnError" in tracer).toBe(false);
  });
});
