// @agent-lattice/mailbox-postgres: a TeamMailbox on PostgreSQL for teams whose members run on many machines.

export { createPostgresMailbox, migratePostgresMailbox } from "./create-postgres-mailbox.js";
export { PostgresMailboxError, type PostgresMailboxErrorCode } from "./errors.js";
export { channelOf as postgresMailboxChannel } from "./listener.js";
export { SCHEMA_VERSION as POSTGRES_MAILBOX_SCHEMA_VERSION } from "./migrations.js";
export type {
  PostgresNotification,
  PostgresPoolClientLike,
  PostgresPoolLike,
  PostgresQueryConfig,
  PostgresQueryResult,
} from "./pool.js";
export type { PostgresMailbox, PostgresMailboxOptions } from "./postgres-mailbox.js";
export type { PostgresMailboxRetry } from "./reconnect.js";
