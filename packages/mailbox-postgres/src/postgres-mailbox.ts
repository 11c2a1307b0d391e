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
import { outcomeUnknownError, wasUnsent } from "./faults.js";
import { MailboxListener } from "./listener.js";
import { migrate, quoteIdentifier, SCHEMA_VERSION } from "./migrations.js";
import {
  createPool,
  isPostgresPoolLike,
  type PostgresPoolLike,
  type PostgresQueryConfig,
  withConnection,
} from "./pool.js";
import { DEFAULT_RECONNECT_TIMEOUT_MS, type PostgresMailboxRetry, Reconnector } from "./reconnect.js";
import { cancelledLike, matchSent, type SentPayload, settledWith } from "./replay.js";
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
  /**
   * How long one call keeps retrying while the database is unreachable (a dropped connection, a server restarting,
   * a failover) before it throws PostgresMailboxError("postgres_mailbox_unavailable"), in milliseconds; default
   * 60 000. Retries go at once, then after 100 ms doubling to 5 s, jittered. 0: no retries. Permanent failures
   * (login, missing schema, permissions) are never retried. See the README's "Dropped connections".
   */
  reconnectTimeoutMs?: number;
  /** Observes each retry of a call after a transient failure (and each reconnect of watch()'s LISTEN). */
  onRetry?: (retry: PostgresMailboxRetry) => void;
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

const OPTION_KEYS = new Set([
  "pool",
  "connectionString",
  "schema",
  "poolSize",
  "migrate",
  "reconnectTimeoutMs",
  "onRetry",
]);
const ALL_STATUSES = "{pending,processing,completed,failed,cancelled}";
const KINDS = new Set(["delegation", "message", "reply", "followup"]);
const STATUSES = new Set(["pending", "processing", "completed", "failed", "cancelled", "all"]);
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;
const DEFAULT_SCHEMA = "agent_lattice_mailbox";
const DEFAULT_LEASE_MS = 60_000;

let processOwner: string | undefined;

/** The implementation of createPostgresMailbox() (see create-postgres-mailbox.ts), loaded on its first call. */
export async function openPostgresMailbox(options: PostgresMailboxOptions): Promise<PostgresMailbox> {
  const { schema, poolSize, apply, reconnector } = validateOptions(options);
  const owned = options.pool === undefined;
  const pool = options.pool ?? (await createPool(options.connectionString!, poolSize));
  let storeId: string;
  try {
    // Migrating is one transaction, and finds the schema current if an earlier try committed: safe to retry.
    storeId = await reconnector.run("open", () => migrate(pool, schema, apply));
  } catch (error) {
    if (owned) await pool.end().catch(() => {});
    throw error;
  }
  return postgresMailbox(pool, owned, schema, storeId, reconnector);
}

/** The implementation of migratePostgresMailbox() (see create-postgres-mailbox.ts), loaded on its first call. */
export async function applyMigrations(
  options: Omit<PostgresMailboxOptions, "migrate">,
): Promise<{ schema: string; version: number }> {
  const { schema, poolSize, reconnector } = validateOptions(options);
  const owned = options.pool === undefined;
  const pool = options.pool ?? (await createPool(options.connectionString!, poolSize));
  try {
    await reconnector.run("open", () => migrate(pool, schema, true));
    return { schema, version: SCHEMA_VERSION };
  } finally {
    if (owned) await pool.end().catch(() => {});
  }
}

function validateOptions(options: PostgresMailboxOptions): {
  schema: string;
  poolSize: number;
  apply: boolean;
  reconnector: Reconnector;
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
  const timeoutMs = options.reconnectTimeoutMs ?? DEFAULT_RECONNECT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 0) {
    throw new InvalidOptionError(
      `createPostgresMailbox(): reconnectTimeoutMs must be a non-negative integer (milliseconds; 0 disables retries), got ${JSON.stringify(options.reconnectTimeoutMs)}.`,
    );
  }
  if (options.onRetry !== undefined && typeof options.onRetry !== "function") {
    throw new InvalidOptionError("createPostgresMailbox(): onRetry must be a function.");
  }
  return {
    schema,
    poolSize,
    apply: options.migrate ?? true,
    reconnector: new Reconnector(timeoutMs, schema, options.onRetry),
  };
}

function postgresMailbox(
  pool: PostgresPoolLike,
  owned: boolean,
  schema: string,
  storeId: string,
  reconnector: Reconnector,
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
    // Only after a dropped connection (see replay.ts). FOR SHARE waits for a change still committing on the server.
    heldInMailbox: statement(
      "held_in_mailbox",
      `SELECT ${columns} FROM ${s}.messages WHERE to_mailbox = $1 AND status = 'processing' AND claim_token = $2`,
    ),
    heldBySeq: statement(
      "held_by_seq",
      `SELECT ${columns} FROM ${s}.messages WHERE seq = $1 AND status = 'processing' AND claim_token = $2`,
    ),
    withHistory: statement(
      "with_history",
      `SELECT ${columns}, history FROM ${s}.messages WHERE seq = $1 FOR SHARE`,
    ),
    createdWith: statement(
      "created_with",
      `SELECT ${columns} FROM ${s}.messages WHERE to_mailbox = ANY($1::text[]) AND status = ANY('${ALL_STATUSES}') AND seq > $2 AND created_at = $3 ORDER BY seq`,
    ),
    threadHead: statement(
      "thread_head",
      `SELECT ${columns} FROM ${s}.messages WHERE thread_id = $1 ORDER BY seq LIMIT 1`,
    ),
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
    let result: { p_rows: unknown } | undefined;
    try {
      result = await withConnection(pool, async client => {
        const answer = await client.query<{ p_rows: unknown }>({
          name: `${prefix}_${name}`,
          text: procedures[name],
          values,
        });
        return answer.rows[0];
      });
    } catch (error) {
      // The connection was not handed back for reuse: its prepared statements may be gone (DISCARD ALL), or it
      // failed mid-call. A missing prepared statement means nothing ran, so that is retried once here, on a fresh
      // connection. A dropped connection is the caller's to retry (see `retrying`): it checks first whether the
      // change committed.
      if (!retried && (error as { code?: string }).code === "26000") return change(name, values, true);
      throw error;
    }
    const rows = json(result?.p_rows);
    return Array.isArray(rows) ? (rows as MessageRow[]) : [];
  };
  /** Runs a call with reconnection (see reconnect.ts); `retry` > 0 on a new try after a transient failure. */
  const retrying = <T>(operation: string, call: (retry: number, previous: unknown) => Promise<T>) =>
    reconnector.run(operation, call);
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
    operation: "complete" | "fail" | "release",
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
    return retrying(operation, async retry => {
      if (retry) {
        const earlier = await settledEarlier(seq, claimToken, status, sends);
        if (earlier) return earlier;
      }
      const result = await change("settle", [
        seq,
        claimToken,
        status,
        options?.outcome ? JSON.stringify(options.outcome) : null,
        sends.length ? JSON.stringify(sends) : null,
      ]);
      const [settled, ...sent] = result;
      return settled ? { message: message(settled), sent: sent.map(message) } : undefined;
    });
  };

  /** A settle's earlier try that committed before its connection dropped: what it returned (see replay.ts). */
  const settledEarlier = async (
    seq: string,
    token: string,
    status: string,
    sends: SentPayload[],
  ): Promise<SettledTeamMessage | undefined> => {
    const [row] = await rows(sql.withHistory([seq]));
    const logged = row && settledWith(row.history, token, status);
    if (!logged) return undefined;
    const recipients = [...new Set(sends.map(send => send.to))];
    const candidates = recipients.length ? await rows(sql.createdWith([recipients, seq, logged[2]])) : [];
    return { message: message(row), sent: matchSent(sends, candidates).map(message) };
  };

  const listener = new MailboxListener(pool, schema, reconnector);
  let closing: Promise<void> | undefined;

  return {
    schema,
    storeId,
    async send(input) {
      const data = payload(validateNew(input));
      // A new conversation gets its thread id here rather than from the server: if the answer to the send is lost,
      // the retry finds the message by it (a fresh UUID names only this message's thread).
      const root = data.threadId === undefined && data.parentSeq === undefined;
      const sent = root ? { ...data, threadId: `th_${randomUUID()}` } : data;
      return retrying("send", async (retry, previous) => {
        if (retry && !wasUnsent(previous)) {
          if (!root) throw outcomeUnknownError(sent.to, previous);
          const [stored] = await rows(sql.threadHead([sent.threadId]));
          if (stored) return message(stored);
        }
        const [row] = await change("send", [JSON.stringify(sent)]);
        return message(row!);
      });
    },
    async get(messageId) {
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      return retrying("get", async () => {
        const [row] = await rows(sql.bySeq([seq]));
        return row ? message(row) : undefined;
      });
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
      const found = await retrying("inbox", () =>
        status === "all"
          ? rows(sql.inboxAll([mailboxId, limit]))
          : rows(sql.inboxStatus([mailboxId, status, limit])),
      );
      return found.map(message);
    },
    async thread(threadId) {
      return (await retrying("thread", () => rows(sql.thread([threadId])))).map(message);
    },
    async claimNext(mailboxId, claimOptions) {
      const leaseMs = leaseOf(claimOptions?.leaseMs);
      const owner = ownerOf(claimOptions);
      const token = randomUUID();
      return retrying("claimNext", async retry => {
        // An earlier try may have committed before its answer was lost: then the claim is there under this token.
        const [held] = retry ? await rows(sql.heldInMailbox([mailboxId, token])) : [];
        return claimed(held ?? (await rows(sql.claimNext([mailboxId, owner, token, leaseMs])))[0], token);
      });
    },
    async claim(messageId, claimOptions) {
      const leaseMs = leaseOf(claimOptions?.leaseMs);
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      const owner = ownerOf(claimOptions);
      const token = randomUUID();
      return retrying("claim", async retry => {
        const [held] = retry ? await rows(sql.heldBySeq([seq, token])) : [];
        return claimed(held ?? (await rows(sql.claim([seq, owner, token, leaseMs])))[0], token);
      });
    },
    async renew(messageId, claimToken, leaseMs) {
      const ms = leaseOf(leaseMs ?? DEFAULT_LEASE_MS);
      const seq = seqOf(messageId);
      if (seq === undefined || typeof claimToken !== "string") return false;
      // Renewing twice is renewing: retried as it is.
      const result = await retrying("renew", () =>
        pool.query<{ lease_expires_at: string | null }>(sql.renew([seq, claimToken, ms])),
      );
      return result.rows[0]?.lease_expires_at != null;
    },
    complete: (messageId, claimToken, settleOptions) =>
      settle("complete", messageId, claimToken, "completed", settleOptions),
    fail: (messageId, claimToken, settleOptions) =>
      settle("fail", messageId, claimToken, "failed", settleOptions),
    async release(messageId, claimToken) {
      return (await settle("release", messageId, claimToken, "pending", undefined))?.message;
    },
    async cancel(messageId, cancelOptions) {
      assertOutcome(cancelOptions?.outcome);
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      const given = cancelOptions?.claimToken;
      const token = given === undefined || given === null ? null : String(given);
      if (token?.includes("\u0000")) return undefined; // no claim token holds a NUL
      return retrying("cancel", async retry => {
        if (retry) {
          // An earlier try may have committed before its answer was lost (see replay.ts).
          const [current] = await rows(sql.withHistory([seq]));
          if (current && cancelledLike(current, token)) return message(current);
        }
        const [row] = await change("cancel", [
          seq,
          token,
          cancelOptions?.outcome ? JSON.stringify(cancelOptions.outcome) : null,
        ]);
        return row ? message(row) : undefined;
      });
    },
    async transitions(messageId) {
      const seq = seqOf(messageId);
      if (seq === undefined) return [];
      const [row] = await retrying("transitions", () =>
        pool.query<{ history: unknown }>(sql.history([seq])).then(result => result.rows),
      );
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
        reconnector.close();
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
