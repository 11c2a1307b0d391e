// A local stand-in for the LangSmith API, as much of it as langsmith's tracing client uses: GET /info (server
// capabilities: whether to use the multipart endpoint, batch limits), POST /runs/multipart (multipart/form-data:
// one `post.<id>` / `patch.<id>` JSON part per run operation plus `.inputs`, `.outputs`, `.extra`, `.events`,
// `.error` parts, possibly gzip-encoded), POST /runs/batch (JSON { post, patch }), and the unbatched POST /runs and
// PATCH /runs/<id>. It records what arrives and merges each run's post and patches into one record.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

export type ReceiverMode = "ok" | "error500" | "stall";

export interface ReceivedRun {
  id: string;
  name: string;
  run_type: string;
  trace_id: string;
  dotted_order: string;
  parent_run_id?: string;
  start_time?: string | number;
  end_time?: string | number;
  inputs?: Record<string, any>;
  outputs?: Record<string, any>;
  error?: string;
  extra?: { metadata?: Record<string, any>; [key: string]: any };
  events?: Array<Record<string, any>>;
  tags?: string[];
  session_name?: string;
  [key: string]: any;
}

export interface LangSmithReceiver {
  url: string;
  /** Every request: method, path, headers. */
  requests: Array<{ method: string; path: string; headers: IncomingMessage["headers"] }>;
  /** Runs by id, post and patches merged in arrival order. */
  runs: Map<string, ReceivedRun>;
  /** How /runs/* requests are answered from now on ("ok", a 500, or never). */
  setMode(mode: ReceiverMode): void;
  /** The runs as an array, ordered by dotted_order (parents before children, then start time). */
  list(): ReceivedRun[];
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** What /info says: use /runs/multipart (default true) or /runs/batch. */
  multipart?: boolean;
  mode?: ReceiverMode;
  /** Also fail /info when the mode is not "ok" (default: /info always answers). */
  failInfo?: boolean;
}

export async function startLangSmithReceiver(options: ReceiverOptions = {}): Promise<LangSmithReceiver> {
  let mode: ReceiverMode = options.mode ?? "ok";
  const requests: LangSmithReceiver["requests"] = [];
  const runs = new Map<string, ReceivedRun>();
  const stalled = new Set<ServerResponse>();

  const merge = (id: string, fields: Record<string, unknown>) => {
    const current = runs.get(id) ?? ({ id } as ReceivedRun);
    for (const [key, value] of Object.entries(fields))
      if (value !== undefined && value !== null) current[key] = value;
    runs.set(id, current);
  };

  const server = createServer(async (req, res) => {
    req.on("error", () => {});
    res.on("error", () => {});
    const path = new URL(req.url ?? "/", "http://receiver").pathname;
    requests.push({ method: req.method ?? "GET", path, headers: req.headers });
    const body = await readBody(req);
    const isInfo = path === "/info";
    if (mode !== "ok" && (!isInfo || options.failInfo)) {
      if (mode === "stall") {
        stalled.add(res);
        return;
      }
      return send(res, 500, { detail: "receiver configured to fail" });
    }
    try {
      if (isInfo && req.method === "GET") {
        return send(res, 200, {
          version: "0.12.0",
          batch_ingest_config: {
            use_multipart_endpoint: options.multipart ?? true,
            size_limit: 100,
            size_limit_bytes: 20_971_520,
            scale_up_qsize_trigger: 1000,
            scale_up_nthreads_limit: 16,
            scale_down_nempty_trigger: 4,
          },
          instance_flags: {},
        });
      }
      if (path === "/runs/multipart" && req.method === "POST") {
        const form = await new Response(new Uint8Array(body), {
          headers: { "content-type": req.headers["content-type"] ?? "" },
        }).formData();
        // Main parts first, then their fields, so a field never lands before the run it belongs to.
        const entries = [...form.entries()].sort(([a], [b]) => a.split(".").length - b.split(".").length);
        for (const [name, value] of entries) {
          const [, id, field] = name.split(".");
          if (!id || name.startsWith("feedback") || name.startsWith("attachment")) continue;
          const parsed = JSON.parse(typeof value === "string" ? value : await value.text());
          merge(id, field ? { [field]: parsed } : parsed);
        }
        return send(res, 202, {});
      }
      if (path === "/runs/batch" && req.method === "POST") {
        const batch = JSON.parse(body.toString("utf8")) as { post?: ReceivedRun[]; patch?: ReceivedRun[] };
        for (const run of [...(batch.post ?? []), ...(batch.patch ?? [])]) merge(run.id, run);
        return send(res, 202, {});
      }
      if (path === "/runs" && req.method === "POST") {
        const run = JSON.parse(body.toString("utf8")) as ReceivedRun;
        merge(run.id, run);
        return send(res, 202, {});
      }
      const patch = /^\/runs\/([0-9a-f-]{36})$/.exec(path);
      if (patch && req.method === "PATCH") {
        merge(patch[1]!, JSON.parse(body.toString("utf8")));
        return send(res, 202, {});
      }
      return send(res, 404, { detail: `Not found: ${req.method} ${path}` });
    } catch (error) {
      return send(res, 422, { detail: `receiver could not parse the request: ${String(error)}` });
    }
  });
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    runs,
    setMode(next) {
      mode = next;
    },
    list() {
      return [...runs.values()].sort((a, b) => (a.dotted_order < b.dotted_order ? -1 : 1));
    },
    async close() {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>(resolve => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
