// The mapping's edges: a model request that fails, event types the adapter does not know (team events, newer
// ones), runs still open at close(), the startObservation injection point, and the factory's options.
import {
  type ContextTraceEvent,
  createBareAgent,
  InvalidOptionError,
  TRACE_EVENT_VERSION,
  tool,
} from "@agent-lattice/core";
import { DEFAULT_QUIET_MS } from "@agent-lattice/core/internal";
import { invalidRequest, textTurn, toolTurn } from "@agent-lattice/testing";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { setLangfuseTracerProvider } from "@langfuse/tracing";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { createLangfuseContextTracer, type StartObservationFn } from "../src/index.js";
import { mockModel, onCleanup, receiver } from "./helpers.js";

function pipeline(baseUrl: string): LangfuseSpanProcessor {
  const processor = new LangfuseSpanProcessor({ baseUrl, publicKey: "pk", secretKey: "sk" });
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  setLangfuseTracerProvider(provider);
  onCleanup(async () => {
    setLangfuseTracerProvider(null);
    await provider.shutdown().catch(() => undefined);
  });
  return processor;
}

function event(
  type: string,
  data: unknown,
  seq: number,
  extra: Partial<ContextTraceEvent> = {},
): ContextTraceEvent {
  return {
    v: TRACE_EVENT_VERSION,
    session_id: "session-1",
    run_id: "run-1",
    seq,
    source: "crew",
    time: new Date(Date.now() + seq).toISOString(),
    type,
    data,
    ...extra,
  } as ContextTraceEvent;
}

describe("on the real pipeline", () => {
  it("a rejected model request is a generation at level ERROR; the chain ends at level ERROR", async () => {
    const otlp = await receiver();
    const spanProcessor = pipeline(otlp.url);
    const model = await mockModel([invalidRequest("max_tokens: must be positive")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", name: "solo" });
    const tracer = createLangfuseContextTracer({ spanProcessor });
    expect((await agent.prompt("hi", { tracer })).subtype).toBe("error_during_execution");
    await tracer.close!();
    const byName = Object.fromEntries(otlp.spans.map(span => [span.name, span]));
    expect(Object.keys(byName).sort()).toEqual(["m", "solo"]);
    expect(byName.m!.attributes["langfuse.observation.type"]).toBe("generation");
    expect(byName.m!.attributes["langfuse.observation.level"]).toBe("ERROR");
    expect(String(byName.m!.attributes["langfuse.observation.status_message"])).toContain("must be positive");
    expect(byName.solo!.attributes["langfuse.observation.level"]).toBe("ERROR");
  });

  it("unknown event types become event observations; close() ends a run still open at level ERROR", async () => {
    const otlp = await receiver();
    const spanProcessor = pipeline(otlp.url);
    const tracer = createLangfuseContextTracer({ spanProcessor });
    await tracer.onEvent(event("run_start", { model: "lead-model", tools: ["worker"] }, 0));
    await tracer.onEvent(event("team_message", { subtype: "sent", team: "crew" }, 1));
    await tracer.close!();
    const root = otlp.spans.find(span => span.name === "crew")!;
    const marker = otlp.spans.find(span => span.name === "team_message")!;
    expect(marker.attributes["langfuse.observation.type"]).toBe("event");
    expect(marker.parentSpanId).toBe(root.spanId);
    expect(JSON.parse(String(marker.attributes["langfuse.observation.input"]))).toEqual({
      subtype: "sent",
      team: "crew",
    });
    expect(root.attributes["langfuse.observation.level"]).toBe("ERROR");
    expect(root.attributes["langfuse.observation.status_message"]).toBe(
      "the tracer was closed before the run ended",
    );
  });
});

describe("startObservation (injection point)", () => {
  interface Recorded {
    name: string;
    attributes: Record<string, unknown>;
    options: Record<string, unknown>;
    spanAttributes: Record<string, unknown>;
    updates: Array<Record<string, unknown>>;
    ended?: Date;
    id: string;
  }

  function recorder() {
    const observations: Recorded[] = [];
    const start = (
      name: string,
      attributes: Record<string, unknown> = {},
      options: Record<string, unknown> = {},
    ) => {
      const recorded: Recorded = {
        name,
        attributes,
        options,
        spanAttributes: {},
        updates: [],
        id: `obs-${observations.length}`,
      };
      observations.push(recorded);
      return {
        otelSpan: {
          setAttribute: (key: string, value: unknown) => {
            recorded.spanAttributes[key] = value;
          },
          spanContext: () => ({ spanId: recorded.id }),
        },
        update: (attributes: Record<string, unknown>) => void recorded.updates.push(attributes),
        end: (time?: Date) => {
          recorded.ended = time;
        },
      };
    };
    return { observations, start: start as unknown as StartObservationFn };
  }

  it("receives every observation: type, start time, parent span context, trace fields on the root", async () => {
    const { observations, start } = recorder();
    const model = await mockModel([toolTurn({ name: "echo", input: { text: "a" } }), textTurn("A")]);
    const echo = tool("echo", "Echoes", z.object({ text: z.string() }), async ({ text }) => ({
      content: text.toUpperCase(),
    }));
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: model.url,
      model: "m",
      name: "shouter",
      tools: [echo],
    });
    const tracer = createLangfuseContextTracer({ startObservation: start, tags: ["t"] });
    await agent.prompt("shout", { tracer });
    await tracer.close!();

    expect(observations.map(o => `${o.options.asType}:${o.name}`)).toEqual([
      "chain:shouter",
      "generation:m",
      "tool:echo",
      "generation:m",
    ]);
    const [root, ...children] = observations;
    expect(root!.spanAttributes).toMatchObject({
      "langfuse.trace.name": "shouter",
      "session.id": expect.any(String),
      "langfuse.trace.tags": ["agent-lattice", "t"],
    });
    expect(root!.options.parentSpanContext).toBeUndefined();
    for (const child of children) {
      expect(child.options.parentSpanContext).toEqual({ spanId: root!.id });
      expect(child.options.startTime).toBeInstanceOf(Date);
      expect(child.ended!.getTime()).toBeGreaterThanOrEqual((child.options.startTime as Date).getTime());
    }
    expect(root!.updates).toEqual(
      expect.arrayContaining([
        { input: { message: { role: "user", content: "shout" } } },
        { output: expect.objectContaining({ subtype: "success", result: "A" }) },
      ]),
    );
  });
});

describe("when events are mapped", () => {
  it("onEvent only queues: a burst of events is mapped once they pause, never inside the burst", async () => {
    const names: string[] = [];
    const start = ((name: string) => {
      names.push(name);
      return { otelSpan: { spanContext: () => ({ spanId: name }) }, update() {}, end() {} };
    }) as unknown as StartObservationFn;
    const tracer = createLangfuseContextTracer({ startObservation: start });
    await tracer.flush!(); // the library has loaded
    // Fake timers: the pause is simulated (setImmediate too: a turn of the event loop is not a pause).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate"] });
    try {
      tracer.onEvent(event("run_start", { model: "m", tools: [] }, 0));
      vi.advanceTimersByTime(DEFAULT_QUIET_MS - 1);
      tracer.onEvent(event("user_message", { content: "hi", origin: "prompt" }, 1));
      vi.advanceTimersByTime(DEFAULT_QUIET_MS - 1);
      expect(names).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(names).toEqual(["crew"]);
    } finally {
      vi.useRealTimers();
    }
    await tracer.close!();
  });
});

describe("options", () => {
  it("all options are optional; no span processor is needed to create one", () => {
    expect(() => createLangfuseContextTracer()).not.toThrow();
  });

  it("an unknown option or a wrong type throws InvalidOptionError at creation", () => {
    expect(() => createLangfuseContextTracer({ spanprocessor: {} } as never)).toThrow(InvalidOptionError);
    expect(() => createLangfuseContextTracer({ spanProcessor: {} as never })).toThrow(/forceFlush/);
    expect(() => createLangfuseContextTracer({ tags: [1] as never })).toThrow(/tags/);
    expect(() => createLangfuseContextTracer({ startObservation: "x" as never })).toThrow(/startObservation/);
  });

  it("the tracer exposes methods only (failOnError is bound at creation)", () => {
    const tracer = createLangfuseContextTracer({ failOnError: true });
    expect(Object.keys(tracer).sort()).toEqual(["close", "flush", "onEvent"]);
  });
});
