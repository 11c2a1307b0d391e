import { BRANDS, brand, brandOf } from "./brand.js";
import type { SDKResultMessage } from "./sdk-messages.js";

/**
 * Every error the SDK raises or reports is an AgentLatticeError with a stable `code`, so hosts can branch
 * on `error.code` (or `instanceof`) and show the message, which says what went wrong and what to do.
 *
 * `instanceof` works across two installed copies of core (an adapter built against another core version): errors
 * carry a registered-symbol brand, and each SDK error class recognises a branded error of its own `code`.
 * `AgentLatticeError.isInstance(value)` is the same check as a function.
 */
export class AgentLatticeError extends Error {
  /**
   * The code that identifies this class across installed copies: the `code` of every instance, except for
   * APIError, whose instances carry a finer code (see APIErrorCode). Undefined on the base class (any code).
   */
  static readonly errorCode: string | undefined = undefined;
  readonly code: string;
  /**
   * Set when a query ended with an error result and `throwOnError` turned it into this throw: the result message
   * (usage, turns, duration) that the result style would have returned. Not enumerable (it refers back to this
   * error), so the error still serialises.
   */
  declare readonly result?: SDKResultMessage;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    brand(this, BRANDS.error, code);
  }

  /** True for an error of this class made by any installed copy of the SDK. */
  static isInstance(value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the check was called on
    return isBrandedAs(this, value);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass on the right of instanceof
    return isBrandedAs(this, value);
  }
}

function isBrandedAs(type: Function & { errorCode?: string | undefined }, value: unknown): boolean {
  // Ordinary prototype check first: host subclasses (which declare no errorCode of their own) keep it.
  if (Function.prototype[Symbol.hasInstance].call(type, value)) return true;
  const code = brandOf(value, BRANDS.error);
  if (typeof code !== "string") return false;
  if (type === AgentLatticeError) return true;
  return Object.hasOwn(type, "errorCode") && type.errorCode === code;
}

/** A second query was started on an Agent while one is still running. */
export class ConcurrentQueryError extends AgentLatticeError {
  static override readonly errorCode = "concurrent_query";
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
  static override readonly errorCode = "max_turns";
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
 * What went wrong with a model request, as a stable `APIError.code`, from the provider's error type and, when the
 * type says nothing more, the HTTP status:
 *
 * | code                    | provider error type / status                             | what to do                              |
 * | ----------------------- | -------------------------------------------------------- | --------------------------------------- |
 * | `authentication_error`  | `authentication_error`, 401                              | fix the API key                         |
 * | `permission_error`      | `permission_error`, 403                                  | the key may not use this model/endpoint |
 * | `not_found_error`       | `not_found_error`, 404                                   | fix the model name or baseURL           |
 * | `rate_limit_error`      | `rate_limit_error`, 429                                  | wait, lower concurrency                 |
 * | `overloaded_error`      | `overloaded_error`, 529, 503                             | retry later                             |
 * | `invalid_request_error` | `invalid_request_error`, `request_too_large`, 400/413/422 | fix the request (the message says what) |
 * | `server_error`          | `api_error`, `timeout_error`, other 5xx, 408             | retry later                             |
 * | `connection_error`      | no response: refused, reset, torn stream                 | check baseURL, network, proxy           |
 * | `api_error`             | anything else (an unknown type without a status)         | read the message                        |
 */
export type APIErrorCode =
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "overloaded_error"
  | "invalid_request_error"
  | "server_error"
  | "connection_error"
  | "api_error";

const CODE_OF_TYPE: Readonly<Record<string, APIErrorCode>> = {
  authentication_error: "authentication_error",
  permission_error: "permission_error",
  not_found_error: "not_found_error",
  rate_limit_error: "rate_limit_error",
  overloaded_error: "overloaded_error",
  invalid_request_error: "invalid_request_error",
  request_too_large: "invalid_request_error",
  api_error: "server_error",
  timeout_error: "server_error",
  connection_error: "connection_error",
};

const CODE_OF_STATUS: Readonly<Record<number, APIErrorCode>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  408: "server_error",
  413: "invalid_request_error",
  422: "invalid_request_error",
  429: "rate_limit_error",
  503: "overloaded_error",
  529: "overloaded_error",
};

/** The APIErrorCode of a provider failure: its error type when that is a known one, else its HTTP status. */
export function apiErrorCodeOf(status: number | undefined, type: string | undefined): APIErrorCode {
  const byType = type === undefined ? undefined : CODE_OF_TYPE[type];
  if (byType) return byType;
  if (status === undefined) return "api_error";
  return CODE_OF_STATUS[status] ?? (status >= 500 ? "server_error" : "api_error");
}

/**
 * The model provider (or a ModelClient) failed: an HTTP error status after the client's retries, an error event
 * in the middle of a stream, or a broken connection. `code` says which kind of failure it was (APIErrorCode);
 * `status` and `type` mirror the provider's error response.
 */
export class APIError extends AgentLatticeError {
  static override readonly errorCode = "api_error";
  declare readonly code: APIErrorCode;
  /** HTTP status; undefined for errors without one (stream error events, dropped connections). */
  readonly status: number | undefined;
  /** The provider's error type, e.g. "invalid_request_error", "overloaded_error", "connection_error". */
  readonly type: string;
  readonly requestId: string | undefined;
  constructor(
    message: string,
    details: { status?: number; type?: string; requestId?: string; cause?: unknown } = {},
  ) {
    super(apiErrorCodeOf(details.status, details.type), message, { cause: details.cause });
    // Branded by class, not by the finer code, so instanceof APIError holds across installed copies of core.
    brand(this, BRANDS.error, APIError.errorCode);
    this.status = details.status;
    this.type = details.type ?? "api_error";
    this.requestId = details.requestId;
  }
}

/** The query was cancelled through its AbortSignal. */
export class AbortError extends AgentLatticeError {
  static override readonly errorCode = "aborted";
  constructor(message = "The query was aborted by its AbortSignal.", options?: { cause?: unknown }) {
    super("aborted", message, options);
  }
}

/** A single model request exceeded requestTimeoutMs. */
export class TimeoutError extends AgentLatticeError {
  static override readonly errorCode = "request_timeout";
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
  static override readonly errorCode = "invalid_option";
  constructor(message: string) {
    super("invalid_option", message);
  }
}

/** outputSchema was set but the run ended without a valid submit_output submission. */
export class MissingOutputError extends AgentLatticeError {
  static override readonly errorCode = "missing_output";
  constructor(message?: string) {
    super(
      "missing_output",
      message ??
        "The model ended its turn without calling submit_output, so the run has no structured result. Retry, or " +
          "make the instructions say the answer must be submitted with submit_output.",
    );
  }
}

/**
 * outputSchema was set and the model's submit_output calls were rejected `maxOutputAttempts` times in one query
 * (the input failed the schema, or submit_output was not alone in its response), so the run stopped instead of
 * spending more model requests on a payload that does not validate.
 */
export class InvalidOutputError extends AgentLatticeError {
  static override readonly errorCode = "invalid_output";
  /** How many rejected submit_output calls the query made (its maxOutputAttempts). */
  readonly attempts: number;
  /** Why the last one was rejected: the schema's validation issues, as the model was told. */
  readonly issues: string;
  constructor(attempts: number, issues: string) {
    super(
      "invalid_output",
      `The model called submit_output ${attempts} time(s) without a valid output (maxOutputAttempts: ${attempts}), ` +
        `so the run stopped. The last submission was rejected because: ${issues} — Make the outputSchema easier ` +
        "to meet (describe each field, loosen strict constraints), say in the prompt what the answer must contain, " +
        "or raise maxOutputAttempts.",
    );
    this.attempts = attempts;
    this.issues = issues;
  }
}

/** The Agent (or team) was closed with close(); it accepts no further queries. */
export class AgentClosedError extends AgentLatticeError {
  static override readonly errorCode = "agent_closed";
  constructor(message?: string) {
    super(
      "agent_closed",
      message ??
        "This Agent was closed (close() or `await using`) and accepts no further queries. Create a new Agent; to resume " +
          "the same conversation, give it the same historyStore (and sessionId to keep its workspace).",
    );
  }
}

/** A prompt that cannot be sent: not text or content blocks, empty, or holding blocks a prompt may not carry. */
export class InvalidPromptError extends AgentLatticeError {
  static override readonly errorCode = "invalid_prompt";
  constructor(message: string) {
    super("invalid_prompt", message);
  }
}

/** A history passed to replaceHistory() (or loaded) that is not a well-formed conversation. */
export class InvalidHistoryError extends AgentLatticeError {
  static override readonly errorCode = "invalid_history";
  constructor(message: string) {
    super("invalid_history", message);
  }
}

/** resume() was given decisions that do not fit the pending calls (unknown id, decided twice, bad shape). */
export class InvalidApprovalError extends AgentLatticeError {
  static override readonly errorCode = "invalid_approval";
  constructor(message: string) {
    super("invalid_approval", message);
  }
}

/** A new prompt was sent while the session is awaiting approval of earlier calls. */
export class ApprovalPendingError extends AgentLatticeError {
  static override readonly errorCode = "approval_pending";
  /** The calls still waiting for a decision. */
  readonly pendingToolUseIds: string[];
  constructor(pendingToolUseIds: string[]) {
    super(
      "approval_pending",
      `This session is awaiting approval of ${pendingToolUseIds.length} tool call(s) (${pendingToolUseIds.join(", ")}). ` +
        "Answer them with agent.resume(decisions), or drop them with agent.discardPendingApprovals(), before sending a new prompt.",
    );
    this.pendingToolUseIds = pendingToolUseIds;
  }
}

/** The part of a paused call that did not match (see ApprovalMismatchError). */
export type ApprovalMismatchField =
  | "toolUseId"
  | "toolName"
  | "input"
  | "state"
  | "digest"
  | "decision"
  | "result";

/**
 * A resume was refused because the paused batch it would run is not what was paused or approved: the pause record
 * does not match the stored assistant message, a call no longer matches the digest its decision was made for, a
 * recorded decision does not carry this agent's seal, or a call the record lets run now needs a person. Someone
 * changed the history store between the pause and the resume (or the decision belongs to another call). Nothing
 * ran and nothing was written.
 */
export class ApprovalMismatchError extends AgentLatticeError {
  static override readonly errorCode = "approval_mismatch";
  /** The call that did not match. */
  readonly toolUseId: string;
  /** Which part of it. */
  readonly field: ApprovalMismatchField;
  /** Delegation tools between the resumed agent and the call ([] for its own calls). */
  readonly agentPath: string[];
  /** What was found, without the fix advice. */
  readonly detail: string;
  constructor(toolUseId: string, field: ApprovalMismatchField, detail: string, agentPath: string[] = []) {
    const where = agentPath.length ? ` (inside ${agentPath.map(name => `"${name}"`).join(" → ")})` : "";
    super(
      "approval_mismatch",
      `resume(): refused — paused call ${toolUseId}${where} does not match at "${field}": ${detail}. Nothing ran and ` +
        "nothing was written. The history store was changed between the pause and the resume, or the decision was " +
        "made for another call. Check who can write the store; then show the person the current pending approvals " +
        "(getPendingApprovals()) and decide again, or drop the pause with discardPendingApprovals().",
    );
    this.toolUseId = toolUseId;
    this.field = field;
    this.agentPath = agentPath;
    this.detail = detail;
  }

  /** The same mismatch seen from the agent that delegated to `tool`. */
  within(tool: string): ApprovalMismatchError {
    return new ApprovalMismatchError(this.toolUseId, this.field, this.detail, [tool, ...this.agentPath]);
  }
}
