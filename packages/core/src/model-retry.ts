/**
 * Retries of the built-in client, done here rather than inside @anthropic-ai/sdk so they obey the query: the
 * SDK's own retry sleep cannot be cancelled, so a 429 with a long `retry-after` kept a timer (and the process)
 * alive after the query had ended on its deadline, and any `retry-after` was obeyed however long. Here the wait is
 * cancelled with the request's signal, and a provider asking for a longer wait than `maxRetryDelayMs` gets its
 * error surfaced at once (the host decides whether to wait that long). Which responses are retried and the
 * backoff follow the SDK: 408, 409, 429, 5xx and connection failures; `x-should-retry` wins; `retry-after-ms`,
 * then `retry-after` (seconds or an HTTP date); else 0.5 s doubling up to 8 s, with up to 25 % jitter.
 */

export interface RetryPolicy {
  maxRetries: number;
  /** The longest provider-requested wait that is honoured (ms). */
  maxRetryDelayMs: number;
}

export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/** What a failed attempt tells the retry loop. */
export interface RetryDecision {
  retry: boolean;
  /** The wait the provider asked for, when it did. */
  requestedDelayMs?: number | undefined;
}

export class RetryDelayTooLongError extends Error {
  constructor(
    readonly requestedDelayMs: number,
    readonly maxRetryDelayMs: number,
    readonly original: unknown,
  ) {
    super(
      `the provider asked to retry after ${Math.ceil(requestedDelayMs / 1000)} s, longer than maxRetryDelayMs ` +
        `(${maxRetryDelayMs} ms), so the request was not retried`,
    );
  }
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, the retries are used up, or `signal` fires
 * (the pending wait is cancelled and the abort reason thrown).
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  classify: (error: unknown) => RetryDecision,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (signal.aborted || retry >= policy.maxRetries) throw error;
      const decision = classify(error);
      if (!decision.retry) throw error;
      const requested = decision.requestedDelayMs;
      if (requested !== undefined && requested > policy.maxRetryDelayMs) {
        throw new RetryDelayTooLongError(requested, policy.maxRetryDelayMs, error);
      }
      await abortableSleep(requested ?? backoffMs(retry), signal);
    }
  }
}

/** The SDK's backoff: 0.5 s doubling per retry, at most 8 s, minus up to 25 % jitter. */
export function backoffMs(retry: number): number {
  const seconds = Math.min(0.5 * 2 ** retry, 8);
  return seconds * (1 - Math.random() * 0.25) * 1000;
}

/** The wait a response's headers ask for, in ms (`retry-after-ms`, then `retry-after` as seconds or a date). */
export function requestedDelayOf(
  headers: { get(name: string): string | null } | undefined,
): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (!Number.isNaN(ms)) return Math.max(0, ms);
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (!Number.isNaN(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Whether an HTTP status is retried when the server does not say (`x-should-retry`). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
