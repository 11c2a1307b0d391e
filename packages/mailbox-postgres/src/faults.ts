import { PostgresMailboxError } from "./errors.js";

/**
 * What a failed database call means for retrying it:
 * - `transient`: the connection or the server went away (a dropped or terminated connection, a restart, a failover,
 *   too many connections for a moment). The same call may succeed on a new connection.
 * - `permanent`: the database refuses the mailbox as configured (login, missing database or schema, permissions).
 *   Retrying cannot help; it fails at once with a typed error.
 * Anything else (invalid input, a bug) is neither and is thrown as it is.
 */
export type Fault = "transient" | "permanent";

/** Socket errors of a connection that broke or could not be opened (the server restarting, a network blip). */
const SOCKET_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTCONN",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server that ended or refused the session for now: class 08 (connection exception) is matched by
 * prefix; 57P01 admin_shutdown (pg_terminate_backend, a fast shutdown), 57P02 crash_shutdown, 57P03
 * cannot_connect_now (starting up, shutting down, recovering), 57P05 idle_session_timeout, 25P03
 * idle_in_transaction_session_timeout, 53300 too_many_connections.
 */
const TRANSIENT_STATES = new Set(["57P01", "57P02", "57P03", "57P05", "25P03", "53300"]);

/**
 * Refusals no retry can fix (besides class 28, invalid authorization, matched by prefix): 3D000 invalid_catalog_name,
 * 3F000 invalid_schema_name, 42P01 undefined_table, 42883 undefined_function, 42501 insufficient_privilege.
 */
const PERMANENT_STATES = new Set(["3D000", "3F000", "42P01", "42883", "42501"]);

/** node-postgres's own errors for a connection that died or never came up (they carry no code). */
const CLIENT_CONNECTION_ERRORS =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout expired|timeout exceeded when trying to connect|Query read timeout)/;

/** Errors that prove the statement never reached the server: the client was dead before it was sent. */
const NOT_SENT_ERRORS = /is not queryable$/;

export function faultOf(error: unknown): Fault | undefined {
  if (!error || typeof error !== "object" || error instanceof PostgresMailboxError) return undefined;
  if (error instanceof AggregateError) {
    // Connecting to every address of a host failed (IPv6 and IPv4): transient if any attempt was.
    return error.errors.some(inner => faultOf(inner) === "transient") ? "transient" : undefined;
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || TRANSIENT_STATES.has(code)) return "transient";
    if (/^[0-9A-Z]{5}$/.test(code)) {
      if (code.startsWith("08")) return "transient";
      if (code.startsWith("28") || PERMANENT_STATES.has(code)) return "permanent";
    }
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && CLIENT_CONNECTION_ERRORS.test(message) ? "transient" : undefined;
}

/** Failures known not to have reached the server (see markUnsent()). */
const unsent = new WeakSet<object>();

/** Records that `error` happened before the statement was sent (checking out a connection failed). */
export function markUnsent<T>(error: T): T {
  if (error && typeof error === "object") unsent.add(error);
  return error;
}

/** Whether the failed call certainly did nothing on the server: it failed before its statement was sent. */
export function wasUnsent(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const message = (error as { message?: unknown }).message;
  return unsent.has(error) || (typeof message === "string" && NOT_SENT_ERRORS.test(message));
}

function describe(error: unknown): { code: string | undefined; text: string } {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === "string" ? message : String(error);
  return { code: typeof code === "string" ? code : undefined, text: code ? `${code}: ${text}` : text };
}

/** The typed error for a permanent failure: what the database refused, and what to change. */
export function permanentError(error: unknown, schema: string): PostgresMailboxError {
  const { code, text } = describe(error);
  const options = { cause: error, causeCode: code };
  if (code?.startsWith("28")) {
    return new PostgresMailboxError(
      "postgres_mailbox_auth_failed",
      `PostgreSQL refused the mailbox's login (${text}). Check the user and password in the connection string (or your pool's settings) and the server's pg_hba.conf. Not retried: it cannot succeed as configured.`,
      options,
    );
  }
  if (code === "3D000") {
    return new PostgresMailboxError(
      "postgres_mailbox_database_missing",
      `The database the mailbox connects to does not exist (${text}). Create it, or fix the database name in the connection string. Not retried.`,
      options,
    );
  }
  if (code === "42501") {
    return new PostgresMailboxError(
      "postgres_mailbox_permission_denied",
      `The database role may not use the mailbox schema "${schema}" (${text}). Grant it USAGE on the schema, SELECT, INSERT and UPDATE on its tables and EXECUTE on its functions and procedures, or connect as the role that created them. Not retried.`,
      options,
    );
  }
  return new PostgresMailboxError(
    "postgres_mailbox_schema_missing",
    `The mailbox schema "${schema}" or its tables or functions are missing (${text}); was it dropped? Create the mailbox again with migrate: true, or run migratePostgresMailbox({ schema: "${schema}" }) from your deploy step. Not retried.`,
    options,
  );
}

/** The typed error for a call that kept failing transiently until its reconnect budget ran out. */
export function unavailableError(operation: string, elapsedMs: number, error: unknown): PostgresMailboxError {
  const { code, text } = describe(error);
  return new PostgresMailboxError(
    "postgres_mailbox_unavailable",
    `PostgreSQL stayed unreachable for ${(elapsedMs / 1000).toFixed(1)} s while the mailbox retried ${operation}() (last error: ${text}). Check that the server is running and reachable from this process; to ride out longer outages (a failover), raise the mailbox's reconnectTimeoutMs.`,
    { cause: error, causeCode: code },
  );
}

/** A send whose commit may or may not have happened, and which cannot be looked up. */
export function outcomeUnknownError(to: string, error: unknown): PostgresMailboxError {
  const { code, text } = describe(error);
  return new PostgresMailboxError(
    "postgres_mailbox_outcome_unknown",
    `send(): the connection to PostgreSQL dropped while the message to "${to}" was being stored (${text}), and whether it was stored cannot be told: a reply or follow-up is found by nothing of its own. Check the thread (thread(threadId)) before sending it again.`,
    { cause: error, causeCode: code },
  );
}

export function closedError(operation: string, error: unknown): PostgresMailboxError {
  return new PostgresMailboxError(
    "postgres_mailbox_closed",
    `${operation}(): the mailbox was closed while the call waited to reconnect to PostgreSQL.`,
    { cause: error },
  );
}
