// @agent-lattice/mailbox-sqlite: a durable TeamMailbox on any SQLite-like database.
export { SCHEMA_VERSION, SQLiteMailboxSchemaError } from "./schema.js";
export type { SQLiteDatabaseLike, SQLiteStatementLike } from "./sqlite-like.js";
export { createSQLiteMailbox, type SQLiteMailboxOptions } from "./sqlite-mailbox.js";
