// startTraceServer (issue 17, serve): loopback only, a secret token in the URL, Host checked against DNS
// rebinding, the page's CSP as a header too, and a Server-Sent Events stream that carries what a tracer appends —
// resuming from a cursor, holding back a partial line, and resetting when a file is truncated.

import { appendFile, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidOptionError } from "@agent-lattice/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTraceServer, TraceFileError, TraceRenderError, type TraceServer } from "../src/index.js";
import { TRUNCATED_MARK } from "../src/model/bounded-event.js";
import { runEvents } from "./support/events.js";
import { deeplyNestedTrace } from "./support/hostile-trace.js";

let dir: string;
let trace: string;
const servers: TraceServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-viewer-serve-"));
  trace = join(dir, "run.jsonl");
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
  await rm(dir, { recursive: true, force: true });
});

async function serve(options: Partial<Parameters<typeof startTraceServer>[0]> = {}) {
  const server = await startTraceServer({ files: [trace], pollIntervalMs: 20, ...options });
  servers.push(server);
  return server;
}

const lines = (events: unknown[]) => events.map(event => `${JSON.stringify(event)}\n`).join("");

/** GET with a chosen Host header (fetch may not set Host). */
function get(
  url: string,
  host?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: target.port,
        path: target.pathname + target.search,
        headers: host ? { host } : {},
      },
      response => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", chunk => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Reads SSE messages from the events endpoint. */
async function subscribe(url: string) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const messages: Array<{ event?: string; id?: string; data?: string }> = [];
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: { event?: string; id?: string; data?: string } = {};
          for (const line of block.split("\n")) {
            const [field, ...rest] = line.split(": ");
            if (field === "event" || field === "id" || field === "data") message[field] = rest.join(": ");
          }
          if (message.event) messages.push(message);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    response,
    messages,
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

const element = (html: string, id: string) => {
  const start = html.indexOf(`id="${id}">`) + id.length + 6;
  return JSON.parse(html.slice(start, html.indexOf("</script>", start)));
};
const embeddedData = (html: string) => ({
  ...element(html, "al-trace-meta"),
  events: element(html, "al-trace-events"),
});

describe("the server", () => {
  it("binds 127.0.0.1, serves the page only under its token and only to a loopback Host", async () => {
    const run = runEvents("r", "agent");
    run.start();
    await writeFile(trace, lines(run.events));
    const server = await serve();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{22}\/$/);
    expect(server.eventCount).toBe(2);

    const page = await get(server.url);
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toMatch(
      /^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; connect-src 'self';.*frame-ancestors 'none'$/,
    );
    expect(page.headers).toMatchObject({
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    });
    expect(page.body).toContain("connect-src 'self'"); // the meta tag agrees
    expect(embeddedData(page.body)).toMatchObject({ live: { url: "events" }, events: run.events });

    expect((await get(server.url, `localhost:${server.port}`)).status).toBe(200);
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 sends its own name as Host.
    expect((await get(server.url, `evil.example:${server.port}`)).status).toBe(403);
    expect((await get(server.url.replace(/\/[^/]+\/$/, "/"))).status).toBe(404);
    expect((await get(server.url.replace(/\/[^/]+\/$/, "/wrong-token/"))).status).toBe(404);
    expect((await get(`${server.url}events/../../`)).status).toBe(404);
  });

  it("streams appended events from the page's cursor, holding a partial line until its newline", async () => {
    const run = runEvents("r", "agent");
    run.start();
    await writeFile(trace, lines(run.events));
    const server = await serve();
    const { live } = embeddedData((await get(server.url)).body);
    const stream = await subscribe(`${server.url}${live.url}?cursor=${encodeURIComponent(live.cursor)}`);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");

    run.turn(1, [{ type: "text", text: "hello" }]);
    const added = lines(run.events.slice(2));
    await appendFile(trace, added.slice(0, added.length - 10)); // a write torn mid-line…
    await new Promise(resolve => setTimeout(resolve, 100));
    await appendFile(trace, added.slice(added.length - 10)); // …completed later
    await expect
      .poll(() => stream.messages.flatMap(message => JSON.parse(message.data!)))
      .toEqual(run.events.slice(2));
    expect(stream.messages[0]!.event).toBe("events");
    expect(stream.messages.at(-1)!.id).toMatch(/:4$/);
    await stream.close();

    // Reconnecting with the last id resumes after it: nothing repeated.
    const again = await subscribe(
      `${server.url}events?cursor=${encodeURIComponent(stream.messages.at(-1)!.id!)}`,
    );
    run.result();
    await appendFile(trace, lines(run.events.slice(4)));
    await expect
      .poll(() => again.messages.flatMap(message => JSON.parse(message.data!)))
      .toEqual(run.events.slice(4));
    await again.close();
  });

  it("a file truncated or replaced resets open pages; a cursor from another generation does too", async () => {
    const run = runEvents("r", "agent");
    run.start();
    await writeFile(trace, lines(run.events));
    const server = await serve();
    const { live } = embeddedData((await get(server.url)).body);
    const stream = await subscribe(`${server.url}events?cursor=${encodeURIComponent(live.cursor)}`);
    await truncate(trace, 0);
    await expect.poll(() => stream.messages.map(message => message.event)).toEqual(["reset"]);
    await stream.close();
    const stale = await subscribe(`${server.url}events?cursor=${encodeURIComponent(live.cursor)}`);
    await expect.poll(() => stale.messages.map(message => message.event)).toEqual(["reset"]);
    await stale.close();
  });

  it("waits for a file that does not exist yet, and follows it once written", async () => {
    const server = await serve();
    expect(server.eventCount).toBe(0);
    const run = runEvents("r", "agent");
    run.start();
    await writeFile(trace, lines(run.events));
    await expect.poll(() => server.eventCount).toBe(2);
  });

  it("refuses bad options and unreadable paths before listening", async () => {
    await expect(startTraceServer({ files: [] })).rejects.toThrow(InvalidOptionError);
    await expect(startTraceServer({ files: [trace], port: 70_000 })).rejects.toThrow(
      /port must be an integer/,
    );
    await expect(startTraceServer({ files: [trace], pollIntervalMs: 0 })).rejects.toThrow(/pollIntervalMs/);
    await expect(startTraceServer({ files: [trace], maxPageBytes: 0.5 })).rejects.toThrow(/maxPageBytes/);
    await expect(startTraceServer({ files: [trace], hots: "0.0.0.0" } as never)).rejects.toThrow(
      /unknown option "hots"/,
    );
    const error = await startTraceServer({ files: [dir] }).catch(caught => caught);
    expect(error).toBeInstanceOf(TraceFileError);
    expect(error).toMatchObject({ code: "trace_file_unreadable", path: dir });
    expect(error.message).toContain("it is a directory");
  });

  it("close() ends live connections and is idempotent", async () => {
    await writeFile(trace, "");
    const server = await serve();
    const stream = await subscribe(`${server.url}events`);
    await server.close();
    await server.close();
    await stream.close();
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it("an event 5,000 levels deep, appended while a page is open, reaches the stream truncated", async () => {
    await writeFile(trace, "");
    const server = await serve();
    const stream = await subscribe(`${server.url}events`);
    await appendFile(trace, deeplyNestedTrace(5_000));
    await expect
      .poll(() => stream.messages.some(message => message.data?.includes(TRUNCATED_MARK)))
      .toBe(true);
    await stream.close();
    const page = await get(server.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain(TRUNCATED_MARK);
  });

  it("a page it cannot build is answered with an error page, reported, and the server keeps serving", async () => {
    await writeFile(trace, deeplyNestedTrace(3));
    const reported: unknown[] = [];
    const server = await serve({ maxPageBytes: 10_000, onError: error => reported.push(error) });
    for (let request = 0; request < 2; request++) {
      const page = await get(server.url);
      expect(page.status).toBe(500);
      expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
      expect(page.body).toContain("Cannot build the trace page for 3 events: the page would be");
      expect(page.body).toContain("The server is still running");
    }
    expect(reported).toHaveLength(2);
    expect(reported[0]).toBeInstanceOf(TraceRenderError);
    expect(reported[0]).toMatchObject({ code: "trace_render_failed" });
    // The stream and the rest of the server still answer.
    const stream = await subscribe(`${server.url}events`);
    await expect.poll(() => stream.messages.length).toBeGreaterThan(0);
    await stream.close();
    expect((await get(`${server.url}nope`)).status).toBe(404);
  });
});
