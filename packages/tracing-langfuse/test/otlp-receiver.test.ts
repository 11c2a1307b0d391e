// The test receiver itself: the same spans sent as OTLP/protobuf and as OTLP/JSON (serialized by OpenTelemetry's
// own serializers) decode to the same records, so the pipeline tests read what the exporter really sent.
import { context, trace } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { receiver } from "./helpers.js";
import { TRACES_PATH } from "./otlp-receiver.js";

describe("OTLP receiver", () => {
  it("decodes protobuf and JSON export requests to the same spans", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer("scope-x");
    const parent = tracer.startSpan("parent");
    const child = tracer.startSpan(
      "child",
      { attributes: { text: "héllo", count: 42, ratio: 0.5, flag: true, list: ["a", "b"], neg: -7 } },
      trace.setSpan(context.active(), parent),
    );
    child.setStatus({ code: 2, message: "broken" });
    child.end();
    parent.end();
    const spans = exporter.getFinishedSpans();
    const otlp = await receiver();
    const post = (type: string, body: Uint8Array) =>
      fetch(`${otlp.url}${TRACES_PATH}`, { method: "POST", headers: { "content-type": type }, body });
    expect(
      (await post("application/x-protobuf", ProtobufTraceSerializer.serializeRequest(spans)!)).status,
    ).toBe(200);
    const fromProtobuf = otlp.spans.splice(0);
    expect((await post("application/json", JsonTraceSerializer.serializeRequest(spans)!)).status).toBe(200);
    const fromJson = otlp.spans.splice(0);

    expect(fromProtobuf).toEqual(fromJson);
    const received = fromJson.find(span => span.name === "child")!;
    const receivedParent = fromJson.find(span => span.name === "parent")!;
    expect(received).toMatchObject({
      parentSpanId: receivedParent.spanId,
      traceId: receivedParent.traceId,
      scope: "scope-x",
      status: { code: 2, message: "broken" },
      attributes: { text: "héllo", count: 42, ratio: 0.5, flag: true, list: ["a", "b"], neg: -7 },
    });
    expect(receivedParent.parentSpanId).toBeUndefined();
    expect(received.spanId).toBe(child.spanContext().spanId);
    expect(received.traceId).toBe(child.spanContext().traceId);
    await provider.shutdown();
  });
});
