// The HTTP plumbing of the hosted tracing adapters' local receivers (stand-ins for LangSmith's and Langfuse's
// ingestion endpoints on loopback): each request's body read whole (gunzipped when so encoded), answered by the
// receiver's own handler while the mode is "ok", with a 500 in "error500", never in "stall" (until close()).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

export type ReceiverMode = "ok" | "error500" | "stall";

export interface IngestServer {
  url: string;
  /** How requests are answered from now on ("ok": by the handler, a 500, or never). */
  setMode(mode: ReceiverMode): void;
  close(): Promise<void>;
}

export interface IngestRequest {
  req: IncomingMessage;
  method: string;
  path: string;
  body: Buffer;
}

export async function startIngestServer(options: {
  mode?: ReceiverMode;
  /** Sees every request first, whatever the mode. */
  onRequest?(request: IngestRequest): void;
  /** true: this request is answered by the handler even when the mode is not "ok" (LangSmith's /info). */
  exempt?(request: IngestRequest): boolean;
  /** The 500's body in "error500" mode. */
  failureBody: string;
  handle(request: IngestRequest, res: ServerResponse): void | Promise<void>;
}): Promise<IngestServer> {
  let mode = options.mode ?? "ok";
  const stalled = new Set<ServerResponse>();
  const server = createServer(async (req, res) => {
    req.on("error", () => {});
    res.on("error", () => {});
    const request = {
      req,
      method: req.method ?? "GET",
      path: new URL(req.url ?? "/", "http://receiver").pathname,
      body: await readBody(req),
    };
    options.onRequest?.(request);
    if (mode !== "ok" && !options.exempt?.(request)) {
      if (mode === "stall") {
        stalled.add(res);
        return;
      }
      return send(res, 500, "application/json", options.failureBody);
    }
    await options.handle(request, res);
  });
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setMode(next) {
      mode = next;
    },
    async close() {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>(resolve => server.close(() => resolve()));
    },
  };
}

export function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": type });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}
