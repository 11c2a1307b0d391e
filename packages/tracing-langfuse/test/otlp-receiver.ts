// A local stand-in for Langfuse's OpenTelemetry ingestion: POST /api/public/otel/v1/traces with an OTLP
// ExportTraceServiceRequest, as OTLP/JSON (what @langfuse/otel's default OTLP/HTTP exporter sends) or as binary
// protobuf (what an OTLP/proto exporter sends), optionally gzip-encoded. It decodes the spans and records them as
// flat objects: ids in hex, attributes as plain values, times in milliseconds.
import { type ReceiverMode, send, startIngestServer } from "../../core/test/support/ingest-server.js";

export type { ReceiverMode };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  scope: string;
}

export interface OtlpReceiver {
  url: string;
  requests: Array<{ path: string; contentType: string; authorization: string | undefined }>;
  spans: ReceivedSpan[];
  setMode(mode: ReceiverMode): void;
  close(): Promise<void>;
}

export const TRACES_PATH = "/api/public/otel/v1/traces";

export async function startOtlpReceiver(mode: ReceiverMode = "ok"): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver["requests"] = [];
  const contentTypeOf = (headers: { "content-type"?: string }) => String(headers["content-type"] ?? "");
  const server = await startIngestServer({
    mode,
    failureBody: '{"message":"receiver configured to fail"}',
    onRequest: ({ req, path }) =>
      requests.push({
        path,
        contentType: contentTypeOf(req.headers),
        authorization: req.headers.authorization,
      }),
    handle({ req, method, path, body }, res) {
      if (method !== "POST" || path !== TRACES_PATH) return send(res, 404, "application/json", "{}");
      const contentType = contentTypeOf(req.headers);
      try {
        spans.push(...(contentType.includes("protobuf") ? decodeProtobuf(body) : decodeJson(body)));
        // An empty ExportTraceServiceResponse, in the request's encoding.
        return contentType.includes("protobuf")
          ? send(res, 200, "application/x-protobuf", Buffer.alloc(0))
          : send(res, 200, "application/json", "{}");
      } catch (error) {
        return send(res, 400, "application/json", JSON.stringify({ message: String(error) }));
      }
    },
  });
  return { url: server.url, requests, spans, setMode: server.setMode, close: server.close };
}

// --- OTLP/JSON (proto3 JSON mapping; the JS exporter writes ids as hex and 64-bit times as strings) -------------

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  kvlistValue?: { values?: Array<{ key: string; value: JsonAnyValue }> };
  bytesValue?: string;
}

function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString("utf8")) as {
    resourceSpans?: Array<{
      scopeSpans?: Array<{
        scope?: { name?: string };
        spans?: Array<{
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          startTimeUnixNano: string | number;
          endTimeUnixNano: string | number;
          attributes?: Array<{ key: string; value: JsonAnyValue }>;
          status?: { code?: number; message?: string };
        }>;
      }>;
    }>;
  };
  const out: ReceivedSpan[] = [];
  for (const resource of request.resourceSpans ?? []) {
    for (const scope of resource.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        out.push({
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          parentSpanId: span.parentSpanId ? hexId(span.parentSpanId) : undefined,
          name: span.name,
          startMs: nanosToMs(span.startTimeUnixNano),
          endMs: nanosToMs(span.endTimeUnixNano),
          attributes: Object.fromEntries((span.attributes ?? []).map(kv => [kv.key, jsonValue(kv.value)])),
          status: {
            code: span.status?.code ?? 0,
            ...(span.status?.message ? { message: span.status.message } : {}),
          },
          scope: scope.scope?.name ?? "",
        });
      }
    }
  }
  return out;
}

/** OTLP/JSON ids are hex; a base64 id (the proto3 default for bytes) is converted. */
function hexId(id: string): string {
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, "base64").toString("hex");
}

function nanosToMs(value: string | number): number {
  return Number(BigInt(value) / 1_000_000n);
}

function jsonValue(value: JsonAnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(jsonValue);
  if (value.kvlistValue)
    return Object.fromEntries((value.kvlistValue.values ?? []).map(kv => [kv.key, jsonValue(kv.value)]));
  if (value.bytesValue !== undefined) return Buffer.from(value.bytesValue, "base64");
  return undefined;
}

// --- OTLP/protobuf: ExportTraceServiceRequest (opentelemetry/proto/collector/trace/v1) ------------------------

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = this.buf[this.pos++];
      if (byte === undefined) throw new Error("truncated varint");
      result |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return result;
    }
  }
  tag(): { field: number; wire: number } {
    const tag = Number(this.varint());
    return { field: tag >>> 3, wire: tag & 7 };
  }
  bytes(): Buffer {
    const length = Number(this.varint());
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }
  fixed64(): bigint {
    const value = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return value;
  }
  double(): number {
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

/** Calls `onField` for each field of the message in `buf`. */
function fields(buf: Buffer, onField: (field: number, wire: number, reader: Reader) => void): void {
  const reader = new Reader(buf);
  while (!reader.done()) {
    const { field, wire } = reader.tag();
    const before = reader.pos;
    onField(field, wire, reader);
    if (reader.pos === before) reader.skip(wire); // field not consumed by the callback
  }
}

function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  fields(body, (field, _wire, reader) => {
    if (field !== 1) return; // resource_spans
    fields(reader.bytes(), (field, _wire, reader) => {
      if (field !== 2) return; // scope_spans
      let scope = "";
      const scoped: ReceivedSpan[] = [];
      fields(reader.bytes(), (field, _wire, reader) => {
        if (field === 1) {
          fields(reader.bytes(), (field, _wire, reader) => {
            if (field === 1) scope = reader.bytes().toString("utf8");
          });
        } else if (field === 2) scoped.push(decodeSpan(reader.bytes()));
      });
      for (const span of scoped) out.push({ ...span, scope });
    });
  });
  return out;
}

function decodeSpan(buf: Buffer): ReceivedSpan {
  const span: ReceivedSpan = {
    traceId: "",
    spanId: "",
    parentSpanId: undefined,
    name: "",
    startMs: 0,
    endMs: 0,
    attributes: {},
    status: { code: 0 },
    scope: "",
  };
  fields(buf, (field, _wire, reader) => {
    if (field === 1) span.traceId = reader.bytes().toString("hex");
    else if (field === 2) span.spanId = reader.bytes().toString("hex");
    else if (field === 4) {
      const parent = reader.bytes();
      span.parentSpanId = parent.length ? parent.toString("hex") : undefined;
    } else if (field === 5) span.name = reader.bytes().toString("utf8");
    else if (field === 7) span.startMs = Number(reader.fixed64() / 1_000_000n);
    else if (field === 8) span.endMs = Number(reader.fixed64() / 1_000_000n);
    else if (field === 9) {
      const [key, value] = decodeKeyValue(reader.bytes());
      span.attributes[key] = value;
    } else if (field === 15) {
      fields(reader.bytes(), (field, _wire, reader) => {
        if (field === 2) span.status.message = reader.bytes().toString("utf8");
        else if (field === 3) span.status.code = Number(reader.varint());
      });
    }
  });
  return span;
}

function decodeKeyValue(buf: Buffer): [string, unknown] {
  let key = "";
  let value: unknown;
  fields(buf, (field, _wire, reader) => {
    if (field === 1) key = reader.bytes().toString("utf8");
    else if (field === 2) value = decodeAnyValue(reader.bytes());
  });
  return [key, value];
}

function decodeAnyValue(buf: Buffer): unknown {
  let value: unknown;
  fields(buf, (field, _wire, reader) => {
    if (field === 1) value = reader.bytes().toString("utf8");
    else if (field === 2) value = reader.varint() !== 0n;
    else if (field === 3) value = Number(BigInt.asIntN(64, reader.varint()));
    else if (field === 4) value = reader.double();
    else if (field === 5) {
      const values: unknown[] = [];
      fields(reader.bytes(), (field, _wire, reader) => {
        if (field === 1) values.push(decodeAnyValue(reader.bytes()));
      });
      value = values;
    } else if (field === 6) {
      const entries: Array<[string, unknown]> = [];
      fields(reader.bytes(), (field, _wire, reader) => {
        if (field === 1) entries.push(decodeKeyValue(reader.bytes()));
      });
      value = Object.fromEntries(entries);
    } else if (field === 7) value = reader.bytes();
  });
  return value;
}
