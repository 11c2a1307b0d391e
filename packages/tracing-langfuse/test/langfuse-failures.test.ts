// A Langfuse host that fails or stalls must never break or hold the agent: onEvent only creates and ends spans;
// the span processor exports them in the background. With failOnError a failed drain surfaces from flush()/close()
// as LangfuseDeliveryError, once. Each test has its own pipeline (setLangfuseTracerProvider: an isolated provider).
import { AgentLatticeError } from "@agent-lattice/core";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { setLangfuseTracerProvider } from "@langfuse/tracing";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it } from "vitest";
import { createLangfuseContextTracer, LangfuseDeliveryError } from "../src/index.js";
import { leadWithToolAndChild, onCleanup, receiver } from "./helpers.js";

function pipeline(baseUrl: string, timeoutSeconds = 5): LangfuseSpanProcessor {
  const processor = new LangfuseSpanProcessor({
    baseUrl,
    publicKey: "pk-lf-test",
    secretKey: "sk-lf-test",
    timeout: timeoutSeconds,
  });
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  setLangfuseTracerProvider(provider);
  onCleanup(async () => {
    setLangfuseTracerProvider(null);
    await provider.shutdown().catch(() => undefined);
  });
  return processor;
}

describe("a failing Langfuse host (500)", () => {
  it("the agent completes normally; close() resolves without failOnError", async () => {
    const otlp = await receiver("error500");
    const spanProcessor = pipeline(otlp.url);
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangfuseContextTracer({ spanProcessor });
    const result = await lead.prompt("Why are there tides?", { tracer });
    expect(result.subtype).toBe("success");
    await expect(tracer.close!()).resolves.toBeUndefined();
    expect(otlp.requests.length).toBeGreaterThan(0); // the export was attempted
  });

  it("with failOnError, close() rejects with LangfuseDeliveryError, once", async () => {
    const otlp = await receiver("error500");
    const spanProcessor = pipeline(otlp.url);
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangfuseContextTracer({ spanProcessor, failOnError: true });
    const result = await lead.prompt("Why are there tides?", { tracer });
    expect(result.subtype).toBe("success");
    const error = await tracer.close!().catch(caught => caught);
    expect(error).toBeInstanceOf(LangfuseDeliveryError);
    expect(error).toBeInstanceOf(AgentLatticeError);
    expect(error.code).toBe("langfuse_delivery_failed");
    await expect(tracer.flush!()).resolves.toBeUndefined();
  });
});

describe("a stalled Langfuse host", () => {
  it("does not hold the agent; close() returns after the exporter's timeout, reporting it with failOnError", async () => {
    const otlp = await receiver("stall");
    const spanProcessor = pipeline(otlp.url, 1);
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangfuseContextTracer({ spanProcessor, failOnError: true });
    const result = await lead.prompt("Why are there tides?", { tracer });
    expect(result.subtype).toBe("success");
    expect(otlp.spans).toHaveLength(0);
    await expect(tracer.close!()).rejects.toBeInstanceOf(LangfuseDeliveryError);
  });
});

describe("without a spanProcessor option", () => {
  it("flush() drains the tracer provider Langfuse uses", async () => {
    const otlp = await receiver();
    pipeline(otlp.url);
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangfuseContextTracer();
    await lead.prompt("Why are there tides?", { tracer });
    await tracer.flush!();
    expect(otlp.spans.filter(span => span.parentSpanId === undefined).map(span => span.name)).toEqual([
      "lead",
    ]);
    expect(otlp.spans).toHaveLength(8);
  });
});
