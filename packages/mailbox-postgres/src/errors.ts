import { AgentLatticeError } from "@agent-lattice/core";

/**
 * Stable codes of PostgresMailboxError:
 * - `postgres_mailbox_schema_too_new`: the tables were migrated by a newer release of this package.
 * - `postgres_mailbox_schema_outdated`: `migrate: false` and the tables are missing or at an older version.
 * - `postgres_client_missing`: a connection string was given but the `pg` package is not installed.
 * - `postgres_mailbox_unavailable`: the database stayed unreachable (dropped connections, a server restarting) for
 *   longer than `reconnectTimeoutMs` while the call retried. Transient: the same call may succeed later.
 * - `postgres_mailbox_auth_failed`: the server refused the login (SQLSTATE class 28). Not retried.
 * - `postgres_mailbox_database_missing`: the database named in the connection does not exist (3D000). Not retried.
 * - `postgres_mailbox_schema_missing`: the mailbox's schema, tables or functions are gone (3F000, 42P01, 42883),
 *   e.g. the schema was dropped after the mailbox was created. Not retried.
 * - `postgres_mailbox_permission_denied`: the role may not use the mailbox's tables or functions (42501). Not retried.
 * - `postgres_mailbox_outcome_unknown`: the connection dropped while a reply or follow-up was being stored, and
 *   whether it was stored cannot be told (new conversations are found again by their thread; these are not).
 * - `postgres_mailbox_closed`: the mailbox was closed while the call waited to reconnect.
 */
export type PostgresMailboxErrorCode =
  | "postgres_mailbox_schema_too_new"
  | "postgres_mailbox_schema_outdated"
  | "postgres_client_missing"
  | "postgres_mailbox_unavailable"
  | "postgres_mailbox_auth_failed"
  | "postgres_mailbox_database_missing"
  | "postgres_mailbox_schema_missing"
  | "postgres_mailbox_permission_denied"
  | "postgres_mailbox_outcome_unknown"
  | "postgres_mailbox_closed";

/**
 * The PostgreSQL mailbox cannot work with this database as it is, or cannot reach it; the message says what to do.
 * `transient` says whether the same call may succeed later without a fix (true only for
 * `postgres_mailbox_unavailable`): the team runtime retries transient failures and stops at the others.
 */
export class PostgresMailboxError extends AgentLatticeError {
  declare readonly code: PostgresMailboxErrorCode;
  readonly transient: boolean;
  /** The code of the failure underneath, when it had one: a SQLSTATE ("28P01") or a socket error ("ECONNREFUSED"). */
  readonly causeCode: string | undefined;
  constructor(
    code: PostgresMailboxErrorCode,
    message: string,
    options?: { cause?: unknown; causeCode?: string },
  ) {
    super(code, message, options);
    this.transient = code === "postgres_mailbox_unavailable";
    this.causeCode = options?.causeCode;
  }
}
