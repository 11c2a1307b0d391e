import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, resolve } from "node:path";
import { InvalidOptionError } from "@agent-lattice/core";
import { assertKnownOptions, messageOf as describeThrown } from "@agent-lattice/core/internal";
import { contentSecurityPolicy } from "./content-security-policy.js";
import { TraceFileError, TraceRenderError } from "./errors.js";
import { escapeHtml } from "./html-text.js";
import { HistoryEncoder } from "./model/history-codec.js";
import { LIVE_EVENTS } from "./model/page-data.js";
import type { TraceEvent } from "./model/trace-event.js";
import { pageAssets } from "./page-assets.js";
import { assertPaths, describeFileError } from "./read-trace-files.js";
import { assertMaxPageBytes, renderPage } from "./render-html.js";
import { TraceFileTail } from "./trace-tail.js";

export interface TraceServerOptions {
  /** JSONL trace files to show and follow. A file that does not exist yet is waited for. */
  files: string[];
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  port?: number;
  /** The page's title (default: the files' names). */
  title?: string;
  /** How often the files are checked for new lines, in ms (default 200). */
  pollIntervalMs?: number;
  /** The largest page to serve, in bytes (default 256 MiB); a larger one is answered with an error page. */
  maxPageBytes?: number;
  /**
   * Told about a file that became unreadable while being followed, or a page that could not be built; the server
   * keeps serving (what it has, or an error page for that request).
   */
  onError?: (error: TraceFileError | TraceRenderError) => void;
}

export interface TraceServer {
  /** The page's address, http://127.0.0.1:<port>/<token>/ — the random token keeps other local users out. */
  readonly url: string;
  readonly port: number;
  /** Events read so far. */
  readonly eventCount: number;
  /** Stops following the files, ends live connections and closes the server. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const KNOWN_OPTIONS = new Set(["files", "port", "title", "pollIntervalMs", "maxPageBytes", "onError"]);
const KEEPALIVE_MS = 15_000;

/**
 * Serves the trace viewer for `files` on loopback and follows them: events a tracer appends (an agent running in
 * another process) reach open pages within a poll interval, over Server-Sent Events. Only 127.0.0.1 is bound;
 * requests must carry the URL's random token and a loopback Host header (which defeats DNS rebinding), and the
 * page has the same Content-Security-Policy as `renderTraceHtml()` plus connect-src 'self' for the stream.
 */
export async function startTraceServer(options: TraceServerOptions): Promise<TraceServer> {
  assertKnownOptions(options, KNOWN_OPTIONS, "startTraceServer");
  if (!options || typeof options !== "object")
    throw new InvalidOptionError("startTraceServer: expected options { files: [...] }.");
  assertPaths(options.files, "startTraceServer: files");
  const { port = 0, pollIntervalMs = 200, title, onError, maxPageBytes } = options;
  assertMaxPageBytes(maxPageBytes, "startTraceServer");
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InvalidOptionError(
      `startTraceServer: port must be an integer from 0 to 65535, got ${JSON.stringify(port)}.`,
    );
  if (typeof pollIntervalMs !== "number" || !(pollIntervalMs >= 10))
    throw new InvalidOptionError(
      `startTraceServer: pollIntervalMs must be a number ≥ 10, got ${JSON.stringify(pollIntervalMs)}.`,
    );
  if (title !== undefined && typeof title !== "string")
    throw new InvalidOptionError("startTraceServer: title must be a string.");
  if (onError !== undefined && typeof onError !== "function")
    throw new InvalidOptionError("startTraceServer: onError must be a function.");

  const files = [...new Set(options.files.map(file => resolve(file)))];
  // A path that exists but cannot be a trace (a directory, unreadable) fails now; a missing one is waited for.
  for (const file of files) {
    try {
      const info = await stat(file);
      if (!info.isFile())
        throw Object.assign(new Error("not a file"), { code: info.isDirectory() ? "EISDIR" : "EINVAL" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        throw new TraceFileError(file, describeFileError(error), { cause: error });
    }
  }
  pageAssets(); // fail at start, not on the first request, when the package is incomplete

  const feed = new TraceFeed(files, onError);
  await feed.poll();
  const server = createServer((request, response) => handle(request, response));
  const token = randomBytes(16).toString("base64url");
  const base = `/${token}/`;
  const clients = new Set<ServerResponse>();

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const host = request.headers.host ?? "";
    if (host !== `127.0.0.1:${actualPort}` && host !== `localhost:${actualPort}`) {
      response
        .writeHead(403, { "content-type": "text/plain; charset=utf-8" })
        .end("Forbidden: unexpected Host header.\n");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    const url = new URL(request.url ?? "/", `http://${host}`);
    const lastEventId = request.headers["last-event-id"] ?? url.searchParams.get("cursor");
    try {
      if (url.pathname === base) servePage(response);
      else if (url.pathname === `${base}events`) serveEvents(request, response, lastEventId);
      else if (url.pathname === base.slice(0, -1)) response.writeHead(308, { location: base }).end();
      else response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found.\n");
    } catch (error) {
      // One request failed to render: it gets an error page, the server keeps serving the next one.
      const failure =
        error instanceof TraceRenderError
          ? error
          : new TraceRenderError(feed.events.length, describeThrown(error), { cause: error });
      onError?.(failure);
      if (response.headersSent) response.end();
      else serveErrorPage(response, failure);
    }
  }

  const securityHeaders = (live: boolean) => ({
    "content-security-policy": `${contentSecurityPolicy(pageAssets(), { live })}; frame-ancestors 'none'`,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
  });

  function servePage(response: ServerResponse): void {
    const html = renderPage(
      {
        version: 1,
        title: title ?? files.map(file => basename(file)).join(", "),
        files,
        generatedAt: new Date().toISOString(),
        eventCount: feed.events.length,
        live: { url: "events", cursor: feed.cursor() },
      },
      feed.events,
      maxPageBytes,
    );
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8", ...securityHeaders(true) })
      .end(html);
  }

  function serveErrorPage(response: ServerResponse, error: TraceRenderError): void {
    response
      .writeHead(500, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-store",
      })
      .end(
        `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Trace viewer: cannot show this trace</title></head>\n` +
          `<body><h1>Cannot show this trace</h1><p>${escapeHtml(error.message)}</p>` +
          "<p>The server is still running: reload once the cause is fixed.</p></body></html>\n",
      );
  }

  function serveEvents(
    request: IncomingMessage,
    response: ServerResponse,
    cursor: string | string[] | null,
  ): void {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      connection: "keep-alive",
      ...securityHeaders(true),
    });
    const from = feed.position(typeof cursor === "string" ? cursor : undefined);
    if (from === undefined) {
      // The page was rendered from files since truncated or replaced (or by an earlier server): start over.
      response.end(`event: ${LIVE_EVENTS.reset}\ndata: {}\n\n`);
      return;
    }
    if (from < feed.events.length) response.write(feed.message(from));
    else response.write(": connected\n\n");
    clients.add(response);
    request.on("close", () => clients.delete(response));
  }

  feed.onChange = change => {
    for (const client of clients) {
      if (change.kind === "reset") client.end(`event: ${LIVE_EVENTS.reset}\ndata: {}\n\n`);
      else client.write(feed.message(change.from));
    }
    if (change.kind === "reset") clients.clear();
  };

  await new Promise<void>((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolvePromise();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    timer = setTimeout(async () => {
      // A poll that fails as a whole (not one file: those are reported by the feed) must not end the process.
      await feed
        .poll()
        .catch(error =>
          onError?.(new TraceRenderError(feed.events.length, describeThrown(error), { cause: error })),
        );
      if (!closed) schedule();
    }, pollIntervalMs);
    timer.unref();
  };
  schedule();
  const keepalive = setInterval(() => {
    for (const client of clients) client.write(": keepalive\n\n");
  }, KEEPALIVE_MS);
  keepalive.unref();

  const close = async () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    clearInterval(keepalive);
    for (const client of clients) client.end();
    clients.clear();
    await new Promise<void>(done => {
      server.close(() => done());
      server.closeAllConnections();
    });
  };
  return {
    url: `http://127.0.0.1:${actualPort}${base}`,
    port: actualPort,
    get eventCount() {
      return feed.events.length;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

type FeedChange = { kind: "events"; from: number } | { kind: "reset" };

/**
 * The events of all followed files, in the order they were read, history-encoded once as they arrive (the page
 * and the stream carry them so), with a cursor ("<generation>:<count>") a page resumes from. A truncated or
 * replaced file starts a new generation: everything is read again and pages reload.
 */
class TraceFeed {
  events: TraceEvent[] = [];
  private encoder = new HistoryEncoder();
  onChange: ((change: FeedChange) => void) | undefined;
  private generation = randomBytes(6).toString("base64url");
  private tails: TraceFileTail[];
  private readonly failing = new Set<string>();

  constructor(
    private readonly files: string[],
    private readonly onError: ((error: TraceFileError) => void) | undefined,
  ) {
    this.tails = files.map(file => new TraceFileTail(file));
  }

  cursor(): string {
    return `${this.generation}:${this.events.length}`;
  }

  /** Index to resume from for a cursor, or undefined when it belongs to another generation. */
  position(cursor: string | undefined): number | undefined {
    if (cursor === undefined) return 0;
    const [generation, count] = cursor.split(":");
    const from = Number(count);
    if (generation !== this.generation || !Number.isInteger(from) || from < 0 || from > this.events.length)
      return undefined;
    return from;
  }

  message(from: number): string {
    return `id: ${this.cursor()}\nevent: ${LIVE_EVENTS.events}\ndata: ${JSON.stringify(this.events.slice(from))}\n\n`;
  }

  async poll(): Promise<void> {
    const from = this.events.length;
    for (const tail of this.tails) {
      let result: Awaited<ReturnType<TraceFileTail["poll"]>>;
      try {
        result = await tail.poll();
        this.failing.delete(tail.path);
      } catch (error) {
        if (!this.failing.has(tail.path)) {
          this.failing.add(tail.path);
          this.onError?.(new TraceFileError(tail.path, describeFileError(error), { cause: error }));
        }
        continue;
      }
      if (result.kind === "reset") {
        this.generation = randomBytes(6).toString("base64url");
        this.events = [];
        this.encoder = new HistoryEncoder();
        this.tails = this.files.map(file => new TraceFileTail(file));
        this.onChange?.({ kind: "reset" });
        return this.poll();
      }
      for (const event of result.events) this.events.push(this.encoder.encode(event));
    }
    if (this.events.length > from) this.onChange?.({ kind: "events", from });
  }
}
