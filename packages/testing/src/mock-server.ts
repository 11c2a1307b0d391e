/**
 * A real HTTP server speaking the Anthropic Messages API (`POST /v1/messages`), answering from a script.
 * Point any Anthropic client at `server.url` to test it offline against faithful responses, streams and faults.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeSseEvent, turnToMessage, turnToStreamEvents } from "./events.js";
import {
  type PromptCacheOptions,
  type PromptCachePlan,
  PromptCacheRequestError,
  PromptCacheSimulator,
} from "./prompt-cache.js";
import { type MockResponder, type MockScriptItem, type MockTurn, statusForErrorType } from "./script.js";
import type { AnthropicErrorBody, RawStreamEvent, RecordedRequest } from "./wire.js";

/** How to start a {@link MockAnthropicServer}. */
export interface MockAnthropicServerOptions {
  /** Replies consumed in order, one per `POST /v1/messages`. */
  script?: MockScriptItem[];
  /** Computes replies once the script queue is empty (or always, with no script). */
  respond?: MockResponder;
  /** Characters per text/thinking/input_json delta (default 12). Tool input always spans ≥ 2 deltas. */
  chunkSize?: number;
  /** When set, requests whose `x-api-key` (or `Authorization: Bearer`) differs get 401 authentication_error. */
  apiKey?: string;
  /**
   * Simulate Anthropic's prompt cache (off by default): `cache_control` breakpoints are validated as the API
   * does, and each reply's usage counts input, cache reads and cache writes from a chars/4 token estimate of the
   * whole prompt (tools, system, messages). A turn's own `usage` fields still win.
   */
  promptCache?: boolean | PromptCacheOptions;
}

/** A running mock Messages API. */
export interface MockAnthropicServer {
  /** `http://127.0.0.1:<port>`: pass as `baseURL`; the API lives at `${url}/v1/messages`. */
  url: string;
  /** Every `POST /v1/messages` with a JSON body, in arrival order, recorded before it is answered. */
  requests: RecordedRequest[];
  /** Appends replies to the script queue. */
  enqueue(...items: MockScriptItem[]): void;
  /** Replaces (or, with `undefined`, removes) the responder used once the queue is empty. */
  respondWith(responder: MockResponder | undefined): void;
  /** Script items not yet consumed. */
  pending(): number;
  /** The simulated prompt cache, when the server was started with `promptCache`. */
  promptCache: PromptCacheSimulator | undefined;
  /** Stops listening and destroys open connections, hung ones included. Idempotent. */
  close(): Promise<void>;
}

/** Starts a mock Messages API on 127.0.0.1 at a random free port. */
export async function startMockAnthropicServer(
  options: MockAnthropicServerOptions = {},
): Promise<MockAnthropicServer> {
  const queue: MockScriptItem[] = [...(options.script ?? [])];
  let responder = options.respond;
  const requests: RecordedRequest[] = [];
  // One controller per open response, aborted on hang-up or close() so delays stop and writes cease.
  const active = new Set<AbortController>();
  let responseCounter = 0;
  let messageCounter = 0;
  const promptCache = options.promptCache
    ? new PromptCacheSimulator(options.promptCache === true ? {} : options.promptCache)
    : undefined;

  const server = createServer((req, res) => {
    // Neither side may crash the process: a client hanging up mid-write is an expected event here.
    req.on("error", () => {});
    res.on("error", () => {});
    handle(req, res).catch(error => {
      if (!res.headersSent && !res.destroyed)
        sendError(res, 500, "api_error", `mock server: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `req_mock_${++responseCounter}`;
    res.setHeader("request-id", requestId);
    const gone = new AbortController();
    active.add(gone);
    res.on("close", () => {
      active.delete(gone);
      gone.abort();
    });
    const signal = gone.signal;
    const send = (status: number, type: string, message: string, headers?: Record<string, string>) =>
      sendError(res, status, type, message, requestId, headers);

    const raw = await readBody(req);
    const pathname = new URL(req.url ?? "/", "http://mock").pathname;
    if (req.method !== "POST" || pathname !== "/v1/messages") {
      return send(404, "not_found_error", `Not found: ${req.method} ${pathname}`);
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(400, "invalid_request_error", "mock server: request body is not valid JSON");
    }
    const recorded: RecordedRequest = {
      method: req.method,
      path: req.url ?? pathname,
      headers: lowerCaseHeaders(req),
      body,
      receivedAt: Date.now(),
    };
    requests.push(recorded);
    const index = requests.length - 1;

    if (options.apiKey !== undefined && presentedKey(recorded.headers) !== options.apiKey) {
      return send(401, "authentication_error", "invalid x-api-key");
    }
    // The API validates cache_control before anything is answered; nothing is consumed from the script.
    let cachePlan: PromptCachePlan | undefined;
    try {
      cachePlan = promptCache?.plan(body);
    } catch (error) {
      if (error instanceof PromptCacheRequestError) return send(400, "invalid_request_error", error.message);
      throw error;
    }
    if (cachePlan) recorded.promptCache = cachePlan.outcome;

    let item = queue.shift();
    if (!item && responder) {
      try {
        item = await responder(recorded, index);
      } catch (error) {
        // 400, not 500: a broken responder is a test bug, and clients must not retry it.
        return send(
          400,
          "invalid_request_error",
          `mock server: responder threw for request #${index + 1}: ${error}`,
        );
      }
    }
    if (!item) {
      return send(
        400,
        "invalid_request_error",
        `mock server: no scripted reply for request #${index + 1} (script exhausted)`,
      );
    }

    const model = typeof body?.model === "string" ? body.model : "mock-model";
    // Ids are drawn only when a turn is encoded, so they match the scripted client's for the same script.
    // Called once the response begins: only then does the cache entry exist (and the hit get refreshed).
    const encoding = () => {
      if (cachePlan) promptCache!.commit(cachePlan);
      return {
        id: `msg_mock_${++messageCounter}`,
        requestMessages: body?.messages,
        chunkSize: options.chunkSize,
        ...(cachePlan ? { cacheUsage: cachePlan.outcome.usage } : {}),
      };
    };
    const streaming = body?.stream === true;

    switch (item.kind) {
      case "turn":
        if (!streaming) {
          if (await sleep(item.delayMs, signal)) sendJson(res, 200, turnToMessage(item, model, encoding()));
        } else if (await writeStream(res, item, turnToStreamEvents(item, model, encoding()), signal))
          res.end();
        return;
      case "http_error":
        return send(item.status, item.errorType, item.message, item.headers);
      case "stream_error": {
        // A non-streaming request has no stream to break: the failure surfaces as the matching HTTP error.
        if (!streaming) return send(statusForErrorType(item.errorType), item.errorType, item.message);
        const events = turnToStreamEvents(item.turn, model, encoding()).slice(0, item.afterEvents);
        if (await writeStream(res, item.turn, events, signal)) {
          res.end(encodeSseEvent({ type: "error", error: { type: item.errorType, message: item.message } }));
        }
        return;
      }
      case "drop_connection": {
        const open = streaming
          ? await writeStream(
              res,
              item.turn,
              turnToStreamEvents(item.turn, model, encoding()).slice(0, item.afterEvents),
              signal,
            )
          : await sleep(item.turn.delayMs, signal);
        if (open) res.socket?.destroy();
        return;
      }
      case "hang":
        // Never answer; the client's abort or close() (which destroys every socket) ends it.
        return;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...items) => void queue.push(...items),
    respondWith: next => {
      responder = next;
    },
    pending: () => queue.length,
    promptCache,
    close: () => {
      closed ??= new Promise<void>(resolve => {
        for (const controller of active) controller.abort();
        server.close(() => resolve());
        // Hung and keep-alive connections would otherwise hold close() open indefinitely.
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(json)),
  });
  res.end(json);
}

function sendError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  requestId?: string,
  headers?: Record<string, string>,
): void {
  const body: AnthropicErrorBody = { type: "error", error: { type, message } };
  if (requestId) body.request_id = requestId;
  sendJson(res, status, body, headers);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function lowerCaseHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function presentedKey(headers: Record<string, string>): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  return headers["x-api-key"] ?? bearer?.[1];
}

/**
 * After `turn.delayMs`, writes the SSE head and `events`, spaced by `turn.chunkDelayMs`. Resolves true when
 * the response is still open for the caller to end (or tear), false when the client or server went away.
 */
async function writeStream(
  res: ServerResponse,
  turn: MockTurn,
  events: RawStreamEvent[],
  signal: AbortSignal,
): Promise<boolean> {
  if (!(await sleep(turn.delayMs, signal))) return false;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  for (const [i, event] of events.entries()) {
    if (i > 0 && !(await sleep(turn.chunkDelayMs, signal))) return false;
    // Wait until the bytes reach the socket so a following destroy() cannot discard them.
    await write(res, encodeSseEvent(event), signal);
    if (signal.aborted) return false;
  }
  return true;
}

/** Writes `data`, resolving once it is flushed to the socket (or the response is gone). */
function write(res: ServerResponse, data: string, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    // The write callback may never run once the socket is destroyed; the abort covers that case.
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    res.write(data, done);
  });
}

/** Waits `ms` (no-op when absent). Resolves false if `signal` aborts first, true otherwise. */
function sleep(ms: number | undefined, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (!ms || ms <= 0) return Promise.resolve(true);
  return new Promise(resolve => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
