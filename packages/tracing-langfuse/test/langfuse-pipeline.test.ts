// R5 on the real pipeline, wired exactly as the README says: LANGFUSE_* variables, a LangfuseSpanProcessor in a
// registered NodeTracerProvider, the tracer on @langfuse/tracing; the OTLP exporter posts to a local receiver at
// LANGFUSE_BASE_URL, which decodes what arrives. One query of a lead with a tool, a failing tool and a delegated
// child must arrive as one trace: a chain root with trace name, session and tags, generations with model and
// usage, tool observations (the failing one at level ERROR), and the child's chain under its tool observation.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createCompositeContextTracer,
  createJsonlContextTracer,
  readContextTrace,
} from "@agent-lattice/core";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLangfuseContextTracer } from "../src/index.js";
import { leadWithToolAndChild, messageText } from "./helpers.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver, TRACES_PATH } from "./otlp-receiver.js";

let otlp: OtlpReceiver;
let langfuseSpanProcessor: LangfuseSpanProcessor;
let provider: NodeTracerProvider;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  process.env.LANGFUSE_PUBLIC_KEY = "pk-lf-test";
  process.env.LANGFUSE_SECRET_KEY = "sk-lf-test";
  process.env.LANGFUSE_BASE_URL = otlp.url;
  langfuseSpanProcessor = new LangfuseSpanProcessor();
  provider = new NodeTracerProvider({ spanProcessors: [langfuseSpanProcessor] });
  provider.register();
});
afterAll(async () => {
  await provider.shutdown();
  await otlp.close();
});
beforeEach(() => {
  otlp.spans.length = 0;
});

const attr = (span: ReceivedSpan, key: string) => span.attributes[key];
const type = (span: ReceivedSpan) => attr(span, "langfuse.observation.type");
const json = (span: ReceivedSpan, key: string) => JSON.parse(String(attr(span, key)));
const meta = (span: ReceivedSpan, key: string) => attr(span, `langfuse.observation.metadata.${key}`);

function one(spans: ReceivedSpan[], name: string, kind?: string): ReceivedSpan {
  const found = spans.filter(span => span.name === name && (!kind || type(span) === kind));
  expect(found, `one ${kind ?? "span"} named ${name}`).toHaveLength(1);
  return found[0]!;
}

describe("Langfuse trace (R5)", () => {
  it("a query with a tool, a failing tool and a delegated child arrives as one trace", async () => {
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangfuseContextTracer({
      spanProcessor: langfuseSpanProcessor,
      tags: ["local-debug"],
      metadata: { environment: "test" },
    });
    const result = await lead.prompt("Why are there tides?", { tracer });
    await tracer.close!();

    expect(result.subtype).toBe("success");
    expect(otlp.requests.every(request => request.path === TRACES_PATH)).toBe(true);
    expect(otlp.requests[0]!.authorization).toBe(
      `Basic ${Buffer.from("pk-lf-test:sk-lf-test").toString("base64")}`,
    );
    const spans = otlp.spans;
    expect(spans.map(span => `${type(span)}:${span.name}`).sort()).toEqual(
      [
        "chain:lead",
        "generation:lead-model",
        "generation:lead-model",
        "tool:lookup",
        "tool:broken",
        "tool:researcher",
        "chain:researcher",
        "generation:child-model",
      ].sort(),
    );
    const root = one(spans, "lead", "chain");
    expect(root.parentSpanId).toBeUndefined();
    expect(new Set(spans.map(span => span.traceId))).toEqual(new Set([root.traceId]));
    expect(root.scope).toBe("langfuse-sdk");

    // Trace-level fields on the root.
    expect(attr(root, "langfuse.trace.name")).toBe("lead");
    expect(attr(root, "session.id")).toBe(meta(root, "agent_session_id"));
    expect(attr(root, "langfuse.trace.tags")).toEqual(["agent-lattice", "local-debug"]);
    expect(attr(root, "langfuse.trace.metadata.environment")).toBe("test");
    expect(json(root, "langfuse.observation.input")).toEqual({
      message: { role: "user", content: "Why are there tides?" },
    });
    expect(json(root, "langfuse.observation.output")).toMatchObject({
      subtype: "success",
      result: "Tides follow the moon.",
    });
    expect(attr(root, "langfuse.observation.level")).toBeUndefined();

    // Nesting.
    const toolObservation = one(spans, "researcher", "tool");
    const childChain = one(spans, "researcher", "chain");
    const childGeneration = one(spans, "child-model");
    for (const span of spans.filter(s => ["lead-model", "lookup", "broken"].includes(s.name))) {
      expect(span.parentSpanId).toBe(root.spanId);
    }
    expect(toolObservation.parentSpanId).toBe(root.spanId);
    expect(childChain.parentSpanId).toBe(toolObservation.spanId);
    expect(childGeneration.parentSpanId).toBe(childChain.spanId);
    expect(attr(childChain, "langfuse.trace.name")).toBeUndefined(); // trace fields live on the root only

    // Generations: model, usage in Langfuse's Anthropic buckets, request as input, turn as output.
    const [firstTurn] = spans.filter(s => s.name === "lead-model").sort((a, b) => a.startMs - b.startMs);
    expect(attr(firstTurn!, "langfuse.observation.model.name")).toBe("lead-model");
    expect(json(firstTurn!, "langfuse.observation.usage_details")).toEqual({
      input: 100,
      output: 20,
      cache_read_input_tokens: 50,
      cache_creation_input_tokens: 30,
      total: 200,
    });
    const sent = json(firstTurn!, "langfuse.observation.input").messages;
    expect(
      sent.map((message: { role: string; content: unknown }) => [message.role, messageText(message)]),
    ).toEqual([["user", "Why are there tides?"]]);
    expect(json(firstTurn!, "langfuse.observation.model.parameters")).toMatchObject({
      max_tokens: expect.any(Number),
    });
    expect(json(firstTurn!, "langfuse.observation.output").message.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "tool_use", name: "researcher" })]),
    );
    expect(json(childGeneration, "langfuse.observation.usage_details")).toEqual({
      input: 40,
      output: 8,
      total: 48,
    });

    // Tools: input, output, errors.
    const broken = one(spans, "broken", "tool");
    expect(attr(broken, "langfuse.observation.level")).toBe("ERROR");
    expect(String(attr(broken, "langfuse.observation.status_message"))).toContain("disk on fire");
    const lookup = one(spans, "lookup", "tool");
    expect(json(lookup, "langfuse.observation.input")).toEqual({ input: { q: "tides" } });
    expect(json(lookup, "langfuse.observation.output")).toEqual({
      content: "fact about tides",
      is_error: false,
    });
    expect(attr(lookup, "langfuse.observation.level")).toBeUndefined();
    expect(meta(lookup, "tool_use_id")).toBe("call_lookup");

    // Times: every observation ends after it starts; the child runs inside its tool call.
    for (const span of spans) expect(span.endMs).toBeGreaterThanOrEqual(span.startMs);
    expect(childChain.startMs).toBeGreaterThanOrEqual(toolObservation.startMs);
    expect(childChain.endMs).toBeLessThanOrEqual(toolObservation.endMs);
    expect(meta(childChain, "agent_session_id")).not.toBe(meta(root, "agent_session_id"));
  });

  it("a query run inside the host's active span is still its own trace", async () => {
    const { context, trace } = await import("@opentelemetry/api");
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangfuseContextTracer({ spanProcessor: langfuseSpanProcessor });
    const hostSpan = trace.getTracer("host").startSpan("http-request");
    await context.with(trace.setSpan(context.active(), hostSpan), () =>
      lead.prompt("Why are there tides?", { tracer }),
    );
    hostSpan.end();
    await tracer.close!();
    const root = one(otlp.spans, "lead", "chain");
    expect(root.parentSpanId).toBeUndefined();
    expect(root.traceId).not.toBe(hostSpan.spanContext().traceId);
    const inTrace = otlp.spans.filter(span => span.traceId === root.traceId);
    expect(inTrace.length).toBeGreaterThan(3);
  });

  it("each query is its own trace; an agent's queries share its session id", async () => {
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangfuseContextTracer({ spanProcessor: langfuseSpanProcessor });
    await lead.prompt("Why are there tides?", { tracer });
    await lead.prompt("And waves?", { tracer });
    await tracer.close!();
    const roots = otlp.spans.filter(span => span.parentSpanId === undefined);
    expect(roots).toHaveLength(2);
    expect(new Set(roots.map(span => span.traceId)).size).toBe(2);
    expect(new Set(roots.map(span => attr(span, "session.id"))).size).toBe(1);
  });

  it("observation ids correlate with the JSONL trace (run ids and tool_use ids as metadata)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "al-lf-jsonl-"));
    try {
      const path = join(dir, "trace.jsonl");
      const { lead } = await leadWithToolAndChild();
      const tracer = createCompositeContextTracer([
        createJsonlContextTracer({ path }),
        createLangfuseContextTracer({ spanProcessor: langfuseSpanProcessor }),
      ]);
      await lead.prompt("Why are there tides?", { tracer });
      await tracer.close!();
      const events = readContextTrace(await readFile(path, "utf8"));
      const chains = otlp.spans.filter(span => type(span) === "chain");
      expect(new Set(chains.map(span => meta(span, "agent_lattice_run_id")))).toEqual(
        new Set(events.map(event => event.run_id)),
      );
      const toolIds = events.flatMap(event => (event.type === "tool_use" ? [event.data.id] : []));
      expect(
        new Set(otlp.spans.filter(span => type(span) === "tool").map(span => meta(span, "tool_use_id"))),
      ).toEqual(new Set(toolIds));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
