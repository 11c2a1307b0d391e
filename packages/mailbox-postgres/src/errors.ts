import { AgentLatticeError } from "@agent-lattice/core";

/**
 * Stable codes of PostgresMailboxError:
 * - `postgres_mailbox_schema_too_new`: the tables were migrated by a newer release of this package.
 * - `postgres_mailbox_schema_outdated`: `migrate: false` and the tables are missing or at an older version.
 * - `postgres_client_missing`: a connection string was given but the `pg` package is not installed.
 */
export type PostgresMailboxErrorCode =
  | "postgres_mailbox_schema_too_new"
  | "postgres_mailbox_schema_outdated"
  | "postgres_client_missing";

/** The PostgreSQL mailbox cannot work with this database as it is; the message says what to do. */
export class PostgresMailboxError extends AgentLatticeError {
  declare readonly code: PostgresMailboxErrorCode;
  constructor(code: PostgresMailboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
