// A local stand-in for the LangSmith API, as much of it as langsmith's tracing client uses: GET /info (server
// capabilities: whether to use the multipart endpoint, batch limits), POST /runs/multipart (multipart/form-data:
// one `post.<id>` / `patch.<id>` JSON part per run operation plus `.inputs`, `.outputs`, `.extra`, `.events`,
// `.error` parts, possibly gzip-encoded), POST /runs/batch (JSON { post, patch }), and the unbatched POST /runs and
// PATCH /runs/<id>. It records what arrives and merges each run's post and patches into one record.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type ReceiverMode,
  send as sendRaw,
  startIngestServer,
} from "../../core/test/support/ingest-server.js";

export type { ReceiverMode };

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
  const requests: LangSmithReceiver["requests"] = [];
  const runs = new Map<string, ReceivedRun>();

  const merge = (id: string, fields: Record<string, unknown>) => {
    const current = runs.get(id) ?? ({ id } as ReceivedRun);
    for (const [key, value] of Object.entries(fields))
      if (value !== undefined && value !== null) current[key] = value;
    runs.set(id, current);
  };

  const server = await startIngestServer({
    ...(options.mode ? { mode: options.mode } : {}),
    failureBody: JSON.stringify({ detail: "receiver configured to fail" }),
    onRequest: ({ req, method, path }) => requests.push({ method, path, headers: req.headers }),
    // /info answers whatever the mode, unless failInfo.
    exempt: ({ path }) => path === "/info" && !options.failInfo,
    async handle({ req, method, path, body }, res) {
      try {
        if (path === "/info" && method === "GET") {
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
        if (path === "/runs/multipart" && method === "POST") {
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
        if (path === "/runs/batch" && method === "POST") {
          const batch = JSON.parse(body.toString("utf8")) as { post?: ReceivedRun[]; patch?: ReceivedRun[] };
          for (const run of [...(batch.post ?? []), ...(batch.patch ?? [])]) merge(run.id, run);
          return send(res, 202, {});
        }
        if (path === "/runs" && method === "POST") {
          const run = JSON.parse(body.toString("utf8")) as ReceivedRun;
          merge(run.id, run);
          return send(res, 202, {});
        }
        const patch = /^\/runs\/([0-9a-f-]{36})$/.exec(path);
        if (patch && method === "PATCH") {
          merge(patch[1]!, JSON.parse(body.toString("utf8")));
          return send(res, 202, {});
        }
        return send(res, 404, { detail: `Not found: ${method} ${path}` });
      } catch (error) {
        return send(res, 422, { detail: `receiver could not parse the request: ${String(error)}` });
      }
    },
  });

  return {
    url: server.url,
    requests,
    runs,
    setMode: server.setMode,
    list() {
      return [...runs.values()].sort((a, b) => (a.dotted_order < b.dotted_order ? -1 : 1));
    },
    close: server.close,
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendRaw(res, status, "application/json", JSON.stringify(body));
}
