/**
 * Every error the SDK raises or reports is an AgentLatticeError with a stable `code`, so hosts can branch
 * on `error.code` (or `instanceof`) and show the message, which says what went wrong and what to do.
 */
export class AgentLatticeError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A second query was started on an Agent while one is still running. */
export class ConcurrentQueryError extends AgentLatticeError {
  constructor(message?: string) {
    super(
      "concurrent_query",
      message ??
        "This Agent is already running a query. An Agent is one conversation: wait for the running query to finish " +
          "(or interrupt() it), or create one Agent per concurrent conversation.",
    );
  }
}

/** The query used all `maxTurns` model turns and the model still wanted to continue. */
export class MaxTurnsError extends AgentLatticeError {
  readonly maxTurns: number;
  constructor(maxTurns: number) {
    super(
      "max_turns",
      `The query reached maxTurns (${maxTurns}) before the model finished. Raise maxTurns on the agent or the ` +
        "query if the task legitimately needs more turns, or narrow the task.",
    );
    this.maxTurns = maxTurns;
  }
}

/**
 * The model provider (or a ModelClient) failed: an HTTP error status after the client's retries, an error event
 * in the middle of a stream, or a broken connection. `status` and `type` mirror the provider's error response.
 */
export class APIError extends AgentLatticeError {
  /** HTTP status; undefined for errors without one (stream error events, dropped connections). */
  readonly status: number | undefined;
  /** The provider's error type, e.g. "invalid_request_error", "overloaded_error", "connection_error". */
  readonly type: string;
  readonly requestId: string | undefined;
  constructor(
    message: string,
    details: { status?: number; type?: string; requestId?: string; cause?: unknown } = {},
  ) {
    super("api_error", message, { cause: details.cause });
    this.status = details.status;
    this.type = details.type ?? "api_error";
    this.requestId = details.requestId;
  }
}

/** The query was cancelled through its AbortSignal. */
export class AbortError extends AgentLatticeError {
  constructor(message = "The query was aborted by its AbortSignal.", options?: { cause?: unknown }) {
    super("aborted", message, options);
  }
}

/** A single model request exceeded requestTimeoutMs. */
export class TimeoutError extends AgentLatticeError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(
      "request_timeout",
      `The model request did not finish within requestTimeoutMs (${timeoutMs} ms). Retry, or raise ` +
        "requestTimeoutMs on the agent or the query.",
    );
    this.timeoutMs = timeoutMs;
  }
}

/** An option object had a key the SDK does not know, or a value of the wrong kind. */
export class InvalidOptionError extends AgentLatticeError {
  constructor(message: string) {
    super("invalid_option", message);
  }
}

/** outputSchema was set but the run ended without a valid submit_output submission. */
export class MissingOutputError extends AgentLatticeError {
  constructor(message?: string) {
    super(
      "missing_output",
      message ??
        "The model ended its turn without calling submit_output, so the run has no structured result. Retry, or " +
          "make the instructions say the answer must be submitted with submit_output.",
    );
  }
}
