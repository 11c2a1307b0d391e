import { randomUUID } from "node:crypto";
import { AgentLatticeError } from "@agent-lattice/core";
import type { SQLiteDatabaseLike } from "./sqlite-like.js";

/** Table names of one mailbox, all starting with its prefix. */
export interface MailboxTables {
  messages: string;
  transitions: string;
  version: string;
}

export function tablesFor(prefix: string): MailboxTables {
  return {
    messages: `${prefix}_messages`,
    transitions: `${prefix}_transitions`,
    version: `${prefix}_schema_version`,
  };
}

/**
 * Migrations, in order; the version table records how many have been applied. Never edit a released one — add
 * the next. The hot queries — claims and inboxes by (recipient, status, order), lookups by id — use keys or one index.
 */
const MIGRATIONS: Array<(t: MailboxTables) => string> = [
  // Version 1. A message id embeds its row number (msg_<store>_<seq>), so lookups by id use the table's own key and
  // need no index of their own. Every state change rewrites only the message's row (status, claim, outcome and its
  // transition log in `history`) and its (recipient, status) index entry: a commit writes as few pages as possible,
  // which is what bounds throughput on a real disk. Threads are read by scan (monitoring, not a hot path).
  t => `
    CREATE TABLE ${t.messages} (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      work_item_id TEXT NOT NULL,
      thread_id TEXT NOT NULL,
      parent_message_id TEXT,
      from_mailbox TEXT NOT NULL,
      to_mailbox TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('delegation', 'message', 'reply', 'followup')),
      content TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'cancelled')),
      metadata TEXT NOT NULL DEFAULT '{}',
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      claimed_by TEXT,
      claim_token TEXT,
      lease_expires_at INTEGER,
      outcome TEXT,
      history TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX ${t.messages}_by_mailbox_status ON ${t.messages} (to_mailbox, status, seq);
  `,
  // Version 2. Version 1's index held every message under (recipient, status, order), so each claim and settle moved
  // an entry and the index grew with the history. The hot queries now use two partial indexes, one of the pending
  // and one of the processing messages, each (recipient, order): they stay as small as the backlog, every claim
  // query is an equality on them (a partial index serves a query only when the query repeats its WHERE term), and a
  // settle just drops its entry. Each index a write touches is one more page in the WAL per commit, which is what a
  // state change costs, so there is no index for reads of settled messages (inboxes of completed/failed/cancelled
  // messages, "all", threads): those are monitoring reads and scan the table.
  t => `
    DROP INDEX IF EXISTS ${t.messages}_by_mailbox_status;
    CREATE INDEX ${t.messages}_pending ON ${t.messages} (to_mailbox, seq) WHERE status = 'pending';
    CREATE INDEX ${t.messages}_processing ON ${t.messages} (to_mailbox, seq) WHERE status = 'processing';
  `,
  // Version 3. One partial index of the open (pending and processing) messages replaces version 2's two, keyed
  // (recipient, status DESC, order): a mailbox's processing messages sort just before its pending ones, so a claim —
  // which takes the first pending message and makes it processing — moves its entry to the neighbouring position,
  // on the same index page, instead of from one index to another (a page fewer in the WAL per claim). Queries name it
  // with an equality on status, each still a seek that reads in order. (The OR, not IN: SQLite uses a partial index
  // only when the query implies its WHERE clause, and `status = 'pending'` implies this one.)
  // The row's `history` changes form too. Version 2 kept a JSON array of [from, to, at, claimToken, owner] entries,
  // rewritten through json_insert() at every transition (SQLite parses and re-serialises the whole log in each
  // write). Now each transition appends its entry as text — `,[to,at]`, or `,[to,at,claimToken,owner]` for a claim —
  // with `||`: no JSON work in SQL, and a row a third smaller (the send is the row's created_at, `from` the previous
  // entry's `to`, and a settle's claim the claim before it). Rows written before keep their array, and new entries
  // follow it; the reader (transitionsOf in sqlite-mailbox.ts) reads both, so the upgrade rewrites no row. A process
  // still running an older release refuses the file (SQLiteMailboxSchemaError) instead of misreading it.
  t => `
    DROP INDEX IF EXISTS ${t.messages}_pending;
    DROP INDEX IF EXISTS ${t.messages}_processing;
    CREATE INDEX ${t.messages}_open ON ${t.messages} (to_mailbox, status DESC, seq)
      WHERE status = 'pending' OR status = 'processing';
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The database was migrated by a newer release of this adapter than the one running. */
export class SQLiteMailboxSchemaError extends AgentLatticeError {
  static override readonly errorCode = "sqlite_mailbox_schema_too_new";
  constructor(found: number) {
    super(
      "sqlite_mailbox_schema_too_new",
      `The SQLite mailbox tables are at schema version ${found}, but this @agent-lattice/mailbox-sqlite knows versions up to ${SCHEMA_VERSION}. Upgrade the package (every process sharing the file must run the same or a newer version).`,
    );
  }
}

/**
 * Creates or upgrades the schema inside one IMMEDIATE transaction, so processes opening the same file at once
 * migrate it exactly once.
 */
export function migrate(
  db: SQLiteDatabaseLike,
  tables: MailboxTables,
  inTransaction: <T>(work: () => T) => T,
): string {
  return inTransaction(() => {
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${tables.version} (version INTEGER NOT NULL, store_id TEXT NOT NULL)`,
    );
    const row = db.prepare(`SELECT version, store_id FROM ${tables.version} LIMIT 1`).get() as
      | { version: number; store_id: string }
      | undefined;
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) throw new SQLiteMailboxSchemaError(current);
    for (let version = current; version < SCHEMA_VERSION; version++) db.exec(MIGRATIONS[version]!(tables));
    // The store id makes message ids unique beyond this file (ids embed it with the row number).
    const storeId = row?.store_id ?? randomUUID().replace(/-/g, "").slice(0, 12);
    if (!row) {
      db.prepare(`INSERT INTO ${tables.version} (version, store_id) VALUES (?, ?)`).run(
        SCHEMA_VERSION,
        storeId,
      );
    } else if (current !== SCHEMA_VERSION) {
      db.prepare(`UPDATE ${tables.version} SET version = ?`).run(SCHEMA_VERSION);
    }
    return storeId;
  });
}
