import type { PostgresMailbox, PostgresMailboxOptions } from "./postgres-mailbox.js";

// The mailbox's code (queries, claims, the listener) loads on the first call: importing this package — or the
// agent-lattice umbrella, which re-exports it — evaluates only its names, errors and constants.

/**
 * A durable TeamMailbox in PostgreSQL, shared by any number of processes on any number of machines: claims take
 * their mailbox's gate (an advisory lock) and the message row with FOR UPDATE SKIP LOCKED, so a member's messages
 * are processed one at a time by one claimer; claims carry leases that the runtime renews, and work a dead process held is claimed again once its lease
 * expires; a settle and the reply it sends commit in one transaction; LISTEN/NOTIFY wakes watchers (idle workers, a
 * lead waiting for reports) as soon as a change commits. It applies its own versioned migrations at creation.
 *
 * The `pg` package is loaded only here, and only when no `pool` is given.
 */
export async function createPostgresMailbox(options: PostgresMailboxOptions): Promise<PostgresMailbox> {
  return (await import("./postgres-mailbox.js")).openPostgresMailbox(options);
}

/**
 * Applies the mailbox schema's pending migrations (a deploy step, for when the application's role may not create
 * tables and mailboxes are created with `migrate: false`). Returns the schema version now in place.
 */
export async function migratePostgresMailbox(
  options: Omit<PostgresMailboxOptions, "migrate">,
): Promise<{ schema: string; version: number }> {
  return (await import("./postgres-mailbox.js")).applyMigrations(options);
}
