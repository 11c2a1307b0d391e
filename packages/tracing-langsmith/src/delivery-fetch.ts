import type { FailureLog } from "./errors.js";

/**
 * The fetch the adapter's langsmith Client sends through. langsmith batches runs and sends them in the
 * background; when a batch finally fails it only logs. To keep `failOnError` honest the adapter owns the
 * retries of its ingest requests (the client is created with `maxRetries: 0`), so this function sees each
 * batch's final outcome and records the batches LangSmith did not accept. It also bounds every request —
 * server-info lookups included — by the tracer's `timeoutMs`, so a stalled endpoint cannot hold `close()` (and a
 * short-lived process) longer than that.
 */
export interface DeliveryFetchOptions {
  timeoutMs: number;
  maxRetries: number;
  failures: FailureLog;
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

// langsmith's own fetch override (overrideFetchImplementation) when the host set one, else the global fetch.
const LANGSMITH_FETCH_KEY = Symbol.for("ls:fetch_implementation");
const baseFetch: Fetch = (input, init) =>
  ((globalThis as Record<symbol, unknown>)[LANGSMITH_FETCH_KEY] as Fetch | undefined)?.(input, init) ??
  fetch(input, init);

/** Statuses worth retrying: the same list langsmith's own caller retries. */
const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

export function createDeliveryFetch({ timeoutMs, maxRetries, failures }: DeliveryFetchOptions): Fetch {
  return async (input, init = {}) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname.endsWith("/info")) return serverInfo(input, { ...init, signal });
    const endpoint = ingestEndpoint(init.method, url.pathname);
    if (!endpoint) return baseFetch(input, { ...init, signal });

    // A streamed multipart body can be read once; buffer it so a retry can send it again.
    let body = init.body;
    if (isStream(body)) body = new Uint8Array(await new Response(body).arrayBuffer());
    const { duplex: _duplex, ...rest } = init as RequestInit & { duplex?: string };
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await baseFetch(input, { ...rest, body, signal });
        if (response.ok) return response;
        if (RETRYABLE.has(response.status) && attempt < maxRetries) {
          await response.arrayBuffer().catch(() => undefined);
          await sleep(backoffMs(attempt, response.headers.get("retry-after")), signal);
          continue;
        }
        // langsmith falls back to /runs/batch when a server has no multipart endpoint: not a loss.
        if (!(response.status === 404 && endpoint === "runs/multipart")) {
          failures.add(`POST /${endpoint} answered ${response.status} ${response.statusText}`.trim());
        }
        return response;
      } catch (error) {
        if (signal.aborted || attempt >= maxRetries) {
          const timedOut = signal.aborted && (signal.reason as Error | undefined)?.name === "TimeoutError";
          failures.add(
            `POST /${endpoint} ${timedOut ? `timed out after ${timeoutMs} ms` : "failed"}`,
            timedOut ? undefined : error,
          );
          throw error;
        }
        await sleep(backoffMs(attempt, null), signal).catch(() => undefined);
      }
    }
  };
}

/**
 * GET /info tells langsmith the server's batch limits and endpoints. When it cannot be had, langsmith retries it
 * four times with backoff (15–30 s) and then uses its defaults; answering "no capabilities" at once gets the same
 * defaults without holding close() that long on an unreachable endpoint. Not a delivery failure: nothing is lost.
 */
async function serverInfo(input: string | URL | Request, init: RequestInit): Promise<Response> {
  try {
    const response = await baseFetch(input, init);
    if (response.ok || response.status < 500) return response;
    await response.arrayBuffer().catch(() => undefined);
  } catch {
    // unreachable or timed out: fall through to the defaults
  }
  return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
}

function ingestEndpoint(method: string | undefined, pathname: string): string | undefined {
  if ((method ?? "GET").toUpperCase() === "GET") return undefined;
  const match = /\/(runs(?:\/batch|\/multipart)?)$/.exec(pathname);
  if (match) return match[1];
  return /\/runs\/[0-9a-f-]{36}$/i.test(pathname) ? "runs/{id}" : undefined;
}

function isStream(body: unknown): body is ReadableStream {
  return (
    typeof body === "object" && body !== null && typeof (body as ReadableStream).getReader === "function"
  );
}

/** 250 ms, 500 ms, 1 s, … with jitter; a server's retry-after (seconds) wins, capped at 10 s. */
function backoffMs(attempt: number, retryAfter: string | null): number {
  const hinted = retryAfter === null ? Number.NaN : Number(retryAfter) * 1000;
  if (Number.isFinite(hinted) && hinted >= 0) return Math.min(hinted, 10_000);
  return 250 * 2 ** attempt * (0.5 + Math.random() / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
