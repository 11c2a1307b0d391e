// @agent-lattice/mailbox-postgres: a TeamMailbox on PostgreSQL for teams whose members run on many machines.
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
export {
  createPostgresMailbox,
  migratePostgresMailbox,
  type PostgresMailbox,
  type PostgresMailboxOptions,
} from "./postgres-mailbox.js";
