import { createHash, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { InvalidOptionError } from "@agent-lattice/core";
import type {
  ClaimedTeamMessage,
  ClaimOptions,
  NewTeamMessage,
  SettledTeamMessage,
  SettleOptions,
  TeamMailbox,
  TeamMailboxWatch,
  TeamMailboxWatchOptions,
  TeamMessageOutcome,
} from "@agent-lattice/team";
import { MailboxListener } from "./listener.js";
import { migrate, quoteIdentifier, SCHEMA_VERSION } from "./migrations.js";
import {
  createPool,
  isPostgresPoolLike,
  type PostgresPoolLike,
  type PostgresQueryConfig,
  type PostgresQueryResult,
} from "./pool.js";
import { json, type MessageRow, toMessage, toTransitions } from "./rows.js";

export interface PostgresMailboxOptions {
  /** Your pg.Pool (node-postgres). It stays yours: close() leaves it open. Give this or `connectionString`. */
  pool?: PostgresPoolLike;
  /** A connection string ("postgres://user:pass@host:5432/db"): the mailbox makes its own pg.Pool and ends it on close(). */
  connectionString?: string;
  /**
   * The PostgreSQL schema holding the mailbox's tables and functions, created if missing. Several mailboxes can share
   * a database under different schemas. Lower-case letters, digits and _; default "agent_lattice_mailbox".
   */
  schema?: string;
  /** Connections of the pool made from `connectionString` (default 10). See the README on pool sizing. */
  poolSize?: number;
  /**
   * Apply pending schema migrations at creation (default true). false: only check that the schema is current and
   * throw PostgresMailboxError("postgres_mailbox_schema_outdated") if not — for roles that may not create tables;
   * migrate from a deploy step with migratePostgresMailbox().
   */
  migrate?: boolean;
}

/** A TeamMailbox on PostgreSQL, with watch() over LISTEN/NOTIFY. */
export interface PostgresMailbox extends TeamMailbox {
  readonly schema: string;
  /** The id message ids of this store embed (`msg_<storeId>_<seq>`). */
  readonly storeId: string;
  watch(mailboxIds: readonly string[], options?: TeamMailboxWatchOptions): Promise<TeamMailboxWatch>;
  /** Closes the watches and returns the LISTEN connection; ends the pool if the mailbox made it. Idempotent. */
  close(): Promise<void>;
}

const OPTION_KEYS = new Set(["pool", "connectionString", "schema", "poolSize", "migrate"]);
const KINDS = new Set(["delegation", "message", "reply", "followup"]);
const STATUSES = new Set(["pending", "processing", "completed", "failed", "cancelled", "all"]);
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;
const DEFAULT_SCHEMA = "agent_lattice_mailbox";
const DEFAULT_LEASE_MS = 60_000;

let processOwner: string | undefined;

/** The implementation of createPostgresMailbox() (see create-postgres-mailbox.ts), loaded on its first call. */
export async function openPostgresMailbox(options: PostgresMailboxOptions): Promise<PostgresMailbox> {
  const { schema, poolSize, apply } = validateOptions(options);
  const owned = options.pool === undefined;
  const pool = options.pool ?? (await createPool(options.connectionString!, poolSize));
  let storeId: string;
  try {
    storeId = await migrate(pool, schema, apply);
  } catch (error) {
    if (owned) await pool.end().catch(() => {});
    throw error;
  }
  return postgresMailbox(pool, owned, schema, storeId);
}

/** The implementation of migratePostgresMailbox() (see create-postgres-mailbox.ts), loaded on its first call. */
export async function applyMigrations(
  options: Omit<PostgresMailboxOptions, "migrate">,
): Promise<{ schema: string; version: number }> {
  const { schema, poolSize } = validateOptions(options);
  const owned = options.pool === undefined;
  const pool = options.pool ?? (await createPool(options.connectionString!, poolSize));
  try {
    await migrate(pool, schema, true);
    return { schema, version: SCHEMA_VERSION };
  } finally {
    if (owned) await pool.end().catch(() => {});
  }
}

function validateOptions(options: PostgresMailboxOptions): {
  schema: string;
  poolSize: number;
  apply: boolean;
} {
  if (!options || typeof options !== "object") {
    throw new InvalidOptionError(
      'createPostgresMailbox(): expected { pool } or { connectionString }, e.g. { connectionString: "postgres://localhost/app" }.',
    );
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) {
      throw new InvalidOptionError(
        `createPostgresMailbox(): unknown option "${key}". Check for a typo, or upgrade the SDK if this option was added in a newer version.`,
      );
    }
  }
  if ((options.pool === undefined) === (options.connectionString === undefined)) {
    throw new InvalidOptionError(
      "createPostgresMailbox(): give exactly one of `pool` (your pg.Pool) or `connectionString` (the mailbox makes its own pool).",
    );
  }
  if (options.pool !== undefined && !isPostgresPoolLike(options.pool)) {
    throw new InvalidOptionError(
      "createPostgresMailbox(): pool must be a node-postgres Pool (new pg.Pool({ … })) with query() and connect().",
    );
  }
  if (
    options.connectionString !== undefined &&
    (typeof options.connectionString !== "string" || options.connectionString.trim() === "")
  ) {
    throw new InvalidOptionError(
      'createPostgresMailbox(): connectionString must be a non-empty string such as "postgres://user@localhost:5432/app".',
    );
  }
  const schema = options.schema ?? DEFAULT_SCHEMA;
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema)) {
    throw new InvalidOptionError(
      `createPostgresMailbox(): schema must be a lower-case SQL identifier (a–z, 0–9, _; not starting with a digit; at most 48 characters); got ${JSON.stringify(schema)}.`,
    );
  }
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new InvalidOptionError(
      `createPostgresMailbox(): poolSize must be a positive integer, got ${JSON.stringify(poolSize)}.`,
    );
  }
  if (options.poolSize !== undefined && options.pool !== undefined) {
    throw new InvalidOptionError(
      "createPostgresMailbox(): poolSize sizes the pool made from connectionString; size your own pool with new pg.Pool({ max }).",
    );
  }
  if (options.migrate !== undefined && typeof options.migrate !== "boolean") {
    throw new InvalidOptionError("createPostgresMailbox(): migrate must be true or false.");
  }
  return { schema, poolSize, apply: options.migrate ?? true };
}

function postgresMailbox(
  pool: PostgresPoolLike,
  owned: boolean,
  schema: string,
  storeId: string,
): PostgresMailbox {
  const s = quoteIdentifier(schema);
  const idPattern = new RegExp(`^msg_${storeId}_(\\d+)$`);
  const idOf = (seq: number) => `msg_${storeId}_${seq}`;
  /** The row number a message id of this store embeds (undefined for a foreign or malformed id). */
  const seqOf = (messageId: string): string | undefined =>
    typeof messageId === "string" ? idPattern.exec(messageId)?.[1] : undefined;
  const message = (row: MessageRow) => toMessage(row, idOf);

  // Prepared once per connection: names are unique per schema, so mailboxes on several schemas share a pool.
  const prefix = `al_${createHash("md5").update(schema).digest("hex").slice(0, 8)}`;
  const statement =
    (name: string, text: string) =>
    (values: unknown[]): PostgresQueryConfig => ({
      name: `${prefix}_${name}`,
      text,
      values,
    });
  // Every column but the transition log (it only grows; transitions() reads it).
  const columns =
    "seq, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, status, metadata, created_at, updated_at, attempts, claimed_by, claim_token, lease_expires_at, outcome";
  const sql = {
    bySeq: statement("by_seq", `SELECT ${columns} FROM ${s}.messages WHERE seq = $1`),
    inboxAll: statement(
      "inbox_all",
      `SELECT ${columns} FROM ${s}.messages WHERE to_mailbox = $1 ORDER BY seq LIMIT $2`,
    ),
    inboxStatus: statement(
      "inbox_status",
      `SELECT ${columns} FROM ${s}.messages WHERE to_mailbox = $1 AND status = $2 ORDER BY seq LIMIT $3`,
    ),
    thread: statement("thread", `SELECT ${columns} FROM ${s}.messages WHERE thread_id = $1 ORDER BY seq`),
    claimNext: statement("claim_next", `SELECT ${columns} FROM ${s}.claim_next($1, $2, $3, $4)`),
    claim: statement("claim", `SELECT ${columns} FROM ${s}.claim($1, $2, $3, $4)`),
    renew: statement("renew", `SELECT ${s}.renew($1, $2, $3) AS lease_expires_at`),
    history: statement("history", `SELECT history FROM ${s}.messages WHERE seq = $1`),
  };
  const rows = async (config: PostgresQueryConfig) => (await pool.query<MessageRow>(config)).rows;

  /**
   * A change that wakes watchers (send, settle, release, cancel): one CALL of the change's procedure, one round trip
   * with bound parameters, prepared once per connection. The procedure commits the change, then NOTIFYs from a
   * second transaction of its own (see migrations.ts, version 2: a NOTIFY inside the durable transaction would
   * serialise every such commit behind one lock held through its WAL flush). It returns the changed rows as JSON.
   */
  const change = async (
    name: keyof typeof procedures,
    values: unknown[],
    retried = false,
  ): Promise<MessageRow[]> => {
    const client = await pool.connect();
    let result: PostgresQueryResult<{ p_rows: unknown }>;
    try {
      result = await client.query<{ p_rows: unknown }>({
        name: `${prefix}_${name}`,
        text: procedures[name],
        values,
      });
    } catch (error) {
      // Not handed back for reuse: the connection's prepared statements may be gone (DISCARD ALL), or it failed
      // mid-call. A missing prepared statement means nothing ran, so that (only that) is retried once, on a fresh
      // connection: a change that may have committed is never repeated.
      client.release(true);
      if (!retried && (error as { code?: string }).code === "26000") return change(name, values, true);
      throw error;
    }
    client.release();
    const rows = json(result.rows[0]?.p_rows);
    return Array.isArray(rows) ? (rows as MessageRow[]) : [];
  };
  const procedures = {
    send: `CALL ${s}.send_call($1::json)`,
    settle: `CALL ${s}.settle_call($1::bigint, $2::text, $3::text, $4::json, $5::json)`,
    cancel: `CALL ${s}.cancel_call($1::bigint, $2::text, $3::json)`,
  };

  /** The JSON the schema's insert_message() takes; the parent's seq when the parent is a message of this store. */
  const payload = (input: NewTeamMessage) => ({
    from: input.from,
    to: input.to,
    kind: input.kind ?? "message",
    content: input.content,
    metadata: input.metadata ?? {},
    ...(input.threadId ? { threadId: input.threadId } : {}),
    ...(input.workItemId ? { workItemId: input.workItemId } : {}),
    ...(input.parentMessageId
      ? { parentMessageId: input.parentMessageId, parentSeq: seqOf(input.parentMessageId) }
      : {}),
  });

  const claimed = (row: MessageRow | undefined, token: string): ClaimedTeamMessage | undefined => {
    if (!row) return undefined;
    const { outcome: _outcome, ...claim } = message(row);
    return { ...claim, claimToken: token } as ClaimedTeamMessage;
  };

  const settle = async (
    messageId: string,
    claimToken: string,
    status: "completed" | "failed" | "pending",
    options: SettleOptions | undefined,
  ): Promise<SettledTeamMessage | undefined> => {
    const sends = (options?.send ?? []).map(input => payload(validateNew(input)));
    assertOutcome(options?.outcome);
    const seq = seqOf(messageId);
    if (seq === undefined || typeof claimToken !== "string" || claimToken.includes("\u0000"))
      return undefined;
    const result = await change("settle", [
      seq,
      claimToken,
      status,
      options?.outcome ? JSON.stringify(options.outcome) : null,
      sends.length ? JSON.stringify(sends) : null,
    ]);
    const [settled, ...sent] = result;
    return settled ? { message: message(settled), sent: sent.map(message) } : undefined;
  };

  const listener = new MailboxListener(pool, schema);
  let closing: Promise<void> | undefined;

  return {
    schema,
    storeId,
    async send(input) {
      const [row] = await change("send", [JSON.stringify(payload(validateNew(input)))]);
      return message(row!);
    },
    async get(messageId) {
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      const [row] = await rows(sql.bySeq([seq]));
      return row ? message(row) : undefined;
    },
    async inbox(mailboxId, inboxOptions) {
      const status = inboxOptions?.status ?? "pending";
      if (!STATUSES.has(status)) {
        throw new InvalidOptionError(
          `inbox(): unknown status ${JSON.stringify(status)}; use pending, processing, completed, failed, cancelled or all.`,
        );
      }
      const limit = inboxOptions?.limit ?? null;
      if (limit !== null && (!Number.isInteger(limit) || limit <= 0)) {
        throw new InvalidOptionError(
          `inbox(): limit must be a positive integer, got ${JSON.stringify(limit)}.`,
        );
      }
      const found =
        status === "all"
          ? await rows(sql.inboxAll([mailboxId, limit]))
          : await rows(sql.inboxStatus([mailboxId, status, limit]));
      return found.map(message);
    },
    async thread(threadId) {
      return (await rows(sql.thread([threadId]))).map(message);
    },
    async claimNext(mailboxId, claimOptions) {
      const leaseMs = leaseOf(claimOptions?.leaseMs);
      const token = randomUUID();
      const [row] = await rows(sql.claimNext([mailboxId, ownerOf(claimOptions), token, leaseMs]));
      return claimed(row, token);
    },
    async claim(messageId, claimOptions) {
      const leaseMs = leaseOf(claimOptions?.leaseMs);
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      const token = randomUUID();
      const [row] = await rows(sql.claim([seq, ownerOf(claimOptions), token, leaseMs]));
      return claimed(row, token);
    },
    async renew(messageId, claimToken, leaseMs) {
      const ms = leaseOf(leaseMs ?? DEFAULT_LEASE_MS);
      const seq = seqOf(messageId);
      if (seq === undefined || typeof claimToken !== "string") return false;
      const result = await pool.query<{ lease_expires_at: string | null }>(sql.renew([seq, claimToken, ms]));
      return result.rows[0]?.lease_expires_at != null;
    },
    complete: (messageId, claimToken, settleOptions) =>
      settle(messageId, claimToken, "completed", settleOptions),
    fail: (messageId, claimToken, settleOptions) => settle(messageId, claimToken, "failed", settleOptions),
    async release(messageId, claimToken) {
      return (await settle(messageId, claimToken, "pending", undefined))?.message;
    },
    async cancel(messageId, cancelOptions) {
      assertOutcome(cancelOptions?.outcome);
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      const given = cancelOptions?.claimToken;
      const token = given === undefined || given === null ? null : String(given);
      if (token?.includes("\u0000")) return undefined; // no claim token holds a NUL
      const [row] = await change("cancel", [
        seq,
        token,
        cancelOptions?.outcome ? JSON.stringify(cancelOptions.outcome) : null,
      ]);
      return row ? message(row) : undefined;
    },
    async transitions(messageId) {
      const seq = seqOf(messageId);
      if (seq === undefined) return [];
      const [row] = await pool.query<{ history: unknown }>(sql.history([seq])).then(result => result.rows);
      return row ? toTransitions(messageId, row.history) : [];
    },
    watch(mailboxIds, watchOptions) {
      if (closing) return Promise.reject(new InvalidOptionError("watch(): the mailbox was closed."));
      if (!Array.isArray(mailboxIds) || mailboxIds.some(id => typeof id !== "string")) {
        return Promise.reject(new InvalidOptionError("watch(): mailboxIds must be an array of mailbox ids."));
      }
      return listener.watch(mailboxIds, watchOptions);
    },
    close() {
      closing ??= (async () => {
        await listener.close();
        if (owned) await pool.end();
      })();
      return closing;
    },
  };
}

function ownerOf(options: ClaimOptions | undefined): string {
  if (options?.owner !== undefined) return options.owner;
  processOwner ??= `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  return processOwner;
}

function leaseOf(leaseMs: number | undefined): number {
  const value = leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvalidOptionError(
      `ClaimOptions.leaseMs must be a positive integer, got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function assertOutcome(outcome: TeamMessageOutcome | undefined): void {
  if (outcome === undefined) return;
  if (!outcome || typeof outcome !== "object") throw new InvalidOptionError("outcome must be an object.");
  if (outcome.content !== undefined && typeof outcome.content !== "string")
    throw new InvalidOptionError("outcome.content must be a string.");
}

/** PostgreSQL text (and JSON it reads) cannot hold U+0000; say so before anything is stored, not in the driver. */
function assertText(value: string, field: string): void {
  if (value.includes("\u0000")) {
    throw new InvalidOptionError(
      `send(): "${field}" contains a NUL character (U+0000), which PostgreSQL text cannot store. Remove or escape it.`,
    );
  }
}

function validateNew(input: NewTeamMessage): NewTeamMessage {
  if (!input || typeof input !== "object") throw new InvalidOptionError("send(): expected a message object.");
  for (const key of ["from", "to"] as const) {
    if (typeof input[key] !== "string" || input[key].trim() === "") {
      throw new InvalidOptionError(
        `send(): "${key}" must be a mailbox id such as "engineering::researcher".`,
      );
    }
    assertText(input[key], key);
  }
  if (typeof input.content !== "string") throw new InvalidOptionError('send(): "content" must be a string.');
  assertText(input.content, "content");
  if (input.kind !== undefined && !KINDS.has(input.kind)) {
    throw new InvalidOptionError(
      `send(): unknown kind ${JSON.stringify(input.kind)}; use delegation, message, reply or followup.`,
    );
  }
  for (const key of ["threadId", "workItemId", "parentMessageId"] as const) {
    const value = input[key];
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new InvalidOptionError(`send(): "${key}" must be a non-empty string when given.`);
    }
    if (value) assertText(value, key);
  }
  let metadata: Record<string, unknown> = {};
  if (input.metadata !== undefined) {
    if (!input.metadata || typeof input.metadata !== "object" || Array.isArray(input.metadata)) {
      throw new InvalidOptionError("send(): metadata must be a plain object.");
    }
    let text: string;
    try {
      text = JSON.stringify(input.metadata);
    } catch (error) {
      throw new InvalidOptionError(`send(): metadata must be JSON-serialisable: ${String(error)}`);
    }
    if (text.includes("\\u0000")) {
      throw new InvalidOptionError(
        'send(): "metadata" contains a NUL character (U+0000), which PostgreSQL cannot store. Remove or escape it.',
      );
    }
    metadata = JSON.parse(text);
  }
  return { ...input, metadata };
}
