import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { InvalidOptionError } from "@agent-lattice/core";
import {
  type ClaimedTeamMessage,
  createNotifiableWatch,
  type NewTeamMessage,
  type NotifiableMailboxWatch,
  type SettledTeamMessage,
  type SettleOptions,
  type TeamMailbox,
  type TeamMessage,
  type TeamMessageOutcome,
  type TeamMessageStatus,
  type TeamMessageTransition,
} from "@agent-lattice/team";
import { migrate, tablesFor } from "./schema.js";
import { isSQLiteDatabaseLike, type SQLiteDatabaseLike, type SQLiteStatementLike } from "./sqlite-like.js";

export interface SQLiteMailboxOptions {
  /** A SQLite connection (better-sqlite3's `new Database(file)` works). The host owns it: close() leaves it open. */
  database: SQLiteDatabaseLike;
  /** Prefix of the mailbox's tables (`<prefix>_messages`, …), so several mailboxes can share a file. Default "team_mailbox". */
  tablePrefix?: string;
  /** How long a write waits for another process's lock before failing (PRAGMA busy_timeout). Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * PRAGMA synchronous for this connection. "NORMAL" (default) with WAL survives a process crash (SIGKILL) without
   * losing a committed message; "FULL" also survives power loss, at one fsync per commit; "inherit" leaves the
   * connection's setting alone.
   */
  synchronous?: "NORMAL" | "FULL" | "inherit";
  /**
   * How watch() hears changes other connections and processes made: SQLite has no notifications, so it polls — a
   * cheap check of the file's change counter (PRAGMA data_version), then, only when that moved, a count of the
   * watched mailboxes' open messages on the index. The interval starts at `minMs` after a change and doubles while
   * the file stays quiet, up to `maxMs`. Default { minMs: 5, maxMs: 200 }. Changes made through this connection wake
   * watchers at once.
   */
  watchPoll?: { minMs?: number; maxMs?: number };
}

const OPTION_KEYS = new Set(["database", "tablePrefix", "busyTimeoutMs", "synchronous", "watchPoll"]);
const KINDS = new Set(["delegation", "message", "reply", "followup"]);
const STATUSES = new Set(["pending", "processing", "completed", "failed", "cancelled", "all"]);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,48}$/;
const DEFAULT_LEASE_MS = 60_000;

interface Row {
  seq: number;
  id: string;
  work_item_id: string;
  thread_id: string;
  parent_message_id: string | null;
  from_mailbox: string;
  to_mailbox: string;
  kind: TeamMessage["kind"];
  content: string;
  status: TeamMessageStatus;
  metadata: string;
  created_at: number;
  updated_at: number;
  attempts: number;
  claimed_by: string | null;
  lease_expires_at: number | null;
  outcome: string | null;
}

/** The columns a write returns. */
type Payload = Pick<
  Row,
  | "seq"
  | "work_item_id"
  | "thread_id"
  | "parent_message_id"
  | "from_mailbox"
  | "to_mailbox"
  | "kind"
  | "content"
  | "metadata"
  | "created_at"
  | "attempts"
>;

/** A validated new message, its metadata already serialised (once: the same text is stored and copied back). */
interface ValidNewMessage extends NewTeamMessage {
  metadataJson: string;
}

/** One entry of a row's transition log: [from, to, at, claimToken, owner]. */
type LoggedTransition = [TeamMessageStatus | null, TeamMessageStatus, number, string | null, string | null];

let processOwner: string | undefined;

/**
 * A durable TeamMailbox in a SQLite database: every state change is one IMMEDIATE transaction (atomic across
 * connections and processes sharing the file), the journal is WAL where the database allows it (a file; not
 * :memory:), and claims carry leases, so work claimed by a process that died is claimed again once its lease has
 * expired — nothing accepted is lost, and no message is processed by two claimers at the same time.
 */
export function createSQLiteMailbox(
  options: SQLiteMailboxOptions,
): TeamMailbox & { readonly journalMode: string } {
  if (!options || typeof options !== "object") {
    throw new InvalidOptionError(
      'createSQLiteMailbox(): expected { database }, e.g. { database: new Database("team-mailbox.db") }.',
    );
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) {
      throw new InvalidOptionError(
        `createSQLiteMailbox(): unknown option "${key}". Check for a typo, or upgrade the SDK if this option was added in a newer version.`,
      );
    }
  }
  const db = options.database;
  if (!isSQLiteDatabaseLike(db)) {
    throw new InvalidOptionError(
      'createSQLiteMailbox(): database must be a SQLite connection with prepare() and exec() — for example better-sqlite3\'s `new Database("team-mailbox.db")`.',
    );
  }
  const prefix = options.tablePrefix ?? "team_mailbox";
  if (typeof prefix !== "string" || !IDENTIFIER.test(prefix)) {
    throw new InvalidOptionError(
      `createSQLiteMailbox(): tablePrefix must be a plain SQL identifier (letters, digits, _; not starting with a digit); got ${JSON.stringify(prefix)}.`,
    );
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new InvalidOptionError(
      `createSQLiteMailbox(): busyTimeoutMs must be a non-negative integer, got ${JSON.stringify(busyTimeoutMs)}.`,
    );
  }
  const poll = options.watchPoll ?? {};
  const minPollMs = poll.minMs ?? 5;
  const maxPollMs = poll.maxMs ?? 200;
  if (
    !poll ||
    typeof poll !== "object" ||
    !Number.isInteger(minPollMs) ||
    !Number.isInteger(maxPollMs) ||
    minPollMs < 1 ||
    maxPollMs < minPollMs
  ) {
    throw new InvalidOptionError(
      `createSQLiteMailbox(): watchPoll must be { minMs, maxMs } with integers 1 ≤ minMs ≤ maxMs, got ${JSON.stringify(options.watchPoll)}.`,
    );
  }
  const synchronous = options.synchronous ?? "NORMAL";
  if (!["NORMAL", "FULL", "inherit"].includes(synchronous)) {
    throw new InvalidOptionError(
      `createSQLiteMailbox(): synchronous must be "NORMAL", "FULL" or "inherit", got ${JSON.stringify(synchronous)}.`,
    );
  }

  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  // WAL lets readers and one writer work at once across processes; an in-memory database keeps "memory".
  db.exec("PRAGMA journal_mode = WAL");
  const journalMode = String(
    (db.prepare("PRAGMA journal_mode").get() as { journal_mode?: unknown })?.journal_mode ?? "",
  );
  if (synchronous !== "inherit") db.exec(`PRAGMA synchronous = ${synchronous}`);

  // IMMEDIATE takes the write lock up front, so a read-then-write (a claim) cannot interleave with another
  // process's; prepared once, since every operation runs one.
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  const inTransaction = <T>(work: () => T): T => {
    begin.run();
    try {
      const result = work();
      commit.run();
      return result;
    } catch (error) {
      try {
        rollback.run();
      } catch {
        // The transaction may already be gone (SQLite rolls back on some errors by itself).
      }
      throw error;
    }
  };

  const t = tablesFor(prefix);
  const storeId = migrate(db, t, inTransaction);
  const idPattern = new RegExp(`^msg_${storeId}_(\\d+)$`);
  /** The row number a message id of this store embeds (undefined for a foreign or malformed id). */
  const seqOf = (messageId: string): number | undefined => {
    const match = typeof messageId === "string" ? idPattern.exec(messageId) : null;
    return match ? Number(match[1]) : undefined;
  };

  // Open-message queries name their partial index (INDEXED BY): left to itself, the planner may prefer the full
  // (recipient, order) index and walk a mailbox's whole settled history to find its first pending message.
  // Every operation on the hot path is ONE statement, prepared here once: a statement that writes is its own
  // transaction in SQLite (autocommit takes the write lock before it reads, waiting up to busy_timeout), so a claim —
  // find the oldest claimable message, mark it processing — is a single atomic UPDATE … RETURNING, and a settle is a
  // single UPDATE guarded by the claim token. Only a settle that also sends messages opens an explicit transaction.
  // The transition log is appended in SQL (`status` in SET is the row's old value), so no row is read back first.
  // A write returns only what its caller does not know already (status, times, claim and outcome it set itself):
  // every column read back is a string converted into the JavaScript heap.
  const payload = `seq, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, metadata, created_at, attempts`;
  const cols = `seq, id, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, status, metadata, created_at, updated_at, attempts, claimed_by, lease_expires_at, outcome`;
  const logTransition =
    "history = json_insert(history, '$[#]', json_array(status, ?, ?, claim_token, claimed_by))";
  const takeSet = `status = 'processing', claimed_by = ?, claim_token = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ?, history = json_insert(history, '$[#]', json_array(status, 'processing', ?, ?, ?))`;
  const live = `SELECT 1 FROM ${t.messages} AS other INDEXED BY ${t.messages}_processing WHERE other.to_mailbox = ? AND other.status = 'processing' AND other.lease_expires_at > ?`;
  const sql = {
    // seq is the next row number, computed in the same statement; the id embeds it.
    insert: db.prepare(
      `INSERT INTO ${t.messages} (seq, id, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, status, metadata, created_at, updated_at, attempts, history)
       SELECT next, ? || next, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, 0, ? FROM (SELECT IFNULL(MAX(seq), 0) + 1 AS next FROM ${t.messages})
       RETURNING seq`,
    ),
    bySeq: db.prepare(`SELECT ${cols} FROM ${t.messages} WHERE seq = ?`),
    parentOf: db.prepare(`SELECT work_item_id, thread_id FROM ${t.messages} WHERE seq = ?`),
    inboxAll: db.prepare(`SELECT ${cols} FROM ${t.messages} WHERE to_mailbox = ? ORDER BY seq LIMIT ?`),
    inboxPending: db.prepare(
      `SELECT ${cols} FROM ${t.messages} INDEXED BY ${t.messages}_pending WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT ?`,
    ),
    inboxProcessing: db.prepare(
      `SELECT ${cols} FROM ${t.messages} INDEXED BY ${t.messages}_processing WHERE to_mailbox = ? AND status = 'processing' ORDER BY seq LIMIT ?`,
    ),
    inboxSettled: db.prepare(
      `SELECT ${cols} FROM ${t.messages} WHERE to_mailbox = ? AND status = ? ORDER BY seq LIMIT ?`,
    ),
    thread: db.prepare(`SELECT ${cols} FROM ${t.messages} WHERE thread_id = ? ORDER BY seq`),
    // The oldest claimable message — the oldest pending one or a processing one whose lease expired — unless one
    // is processing under a live lease (members work serially). Each branch is a seek on the partial index.
    claimNext: db.prepare(
      `UPDATE ${t.messages} SET ${takeSet}
       WHERE seq = (SELECT MIN(seq) FROM (
           SELECT seq FROM (SELECT seq FROM ${t.messages} INDEXED BY ${t.messages}_pending WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT 1)
           UNION ALL
           SELECT seq FROM ${t.messages} INDEXED BY ${t.messages}_processing WHERE to_mailbox = ? AND status = 'processing' AND IFNULL(lease_expires_at, 0) <= ?))
         AND NOT EXISTS (${live})
       RETURNING ${payload}`,
    ),
    claim: db.prepare(
      `UPDATE ${t.messages} SET ${takeSet}
       WHERE seq = ? AND (status = 'pending' OR (status = 'processing' AND IFNULL(lease_expires_at, 0) <= ?))
         AND NOT EXISTS (SELECT 1 FROM ${t.messages} AS other INDEXED BY ${t.messages}_processing WHERE other.to_mailbox = ${t.messages}.to_mailbox AND other.status = 'processing' AND other.lease_expires_at > ? AND other.seq <> ${t.messages}.seq)
       RETURNING ${payload}`,
    ),
    renew: db.prepare(
      `UPDATE ${t.messages} SET lease_expires_at = ?, updated_at = ? WHERE seq = ? AND status = 'processing' AND claim_token = ? RETURNING seq`,
    ),
    // Settle (complete, fail) and release: only the claim's holder. Cancel: a pending message, or the holder.
    settle: db.prepare(
      `UPDATE ${t.messages} SET ${logTransition}, status = ?, outcome = ?, claimed_by = NULL, claim_token = NULL, lease_expires_at = NULL, updated_at = ?
       WHERE seq = ? AND status = 'processing' AND claim_token = ? RETURNING ${payload}`,
    ),
    cancel: db.prepare(
      `UPDATE ${t.messages} SET ${logTransition}, status = 'cancelled', outcome = ?, claimed_by = NULL, claim_token = NULL, lease_expires_at = NULL, updated_at = ?
       WHERE seq = ? AND (status = 'pending' OR (status = 'processing' AND claim_token = ?)) RETURNING ${payload}`,
    ),
    history: db.prepare(`SELECT id, history FROM ${t.messages} WHERE seq = ?`),
    dataVersion: db.prepare("PRAGMA data_version"),
    // What a watcher cares about in one mailbox, from the partial indexes alone: pending and processing counts, the newest.
    fingerprint: db.prepare(
      `SELECT COUNT(*) AS n, MAX(seq) AS top FROM ${t.messages} INDEXED BY ${t.messages}_pending WHERE to_mailbox = ? AND status = 'pending'
       UNION ALL
       SELECT COUNT(*), MAX(seq) FROM ${t.messages} INDEXED BY ${t.messages}_processing WHERE to_mailbox = ? AND status = 'processing'`,
    ),
  } satisfies Record<string, SQLiteStatementLike>;

  const hub = hubFor(db, prefix);
  /** This mailbox object's open watches (close() ends them). */
  const own = new Set<NotifiableMailboxWatch>();
  /** Polls for other connections' changes while any watch of this connection is open. */
  const poller = {
    timer: undefined as ReturnType<typeof setTimeout> | undefined,
    version: undefined as unknown,
    interval: minPollMs,
    fingerprints: new Map<string, string>(),
  };
  const fingerprintOf = (mailboxId: string) => JSON.stringify(sql.fingerprint.all(mailboxId, mailboxId));
  const tick = () => {
    poller.timer = undefined;
    if (!hub.watches.size) return;
    let changed = false;
    try {
      const version = (sql.dataVersion.get() as { data_version: unknown }).data_version;
      if (version !== poller.version) {
        poller.version = version;
        for (const mailboxId of hub.watches.keys()) {
          const fingerprint = fingerprintOf(mailboxId);
          if (poller.fingerprints.get(mailboxId) === fingerprint) continue;
          poller.fingerprints.set(mailboxId, fingerprint);
          hub.notify(mailboxId);
          changed = true;
        }
      }
    } catch {
      // The connection was closed under us, or is busy: try again at the next tick.
    }
    poller.interval = changed ? minPollMs : Math.min(poller.interval * 2, maxPollMs);
    schedule();
  };
  const schedule = () => {
    if (poller.timer || !hub.watches.size) return;
    poller.timer = setTimeout(tick, poller.interval);
    poller.timer.unref?.();
  };

  const byId = (messageId: string): Row | undefined => {
    const seq = seqOf(messageId);
    return seq === undefined ? undefined : (sql.bySeq.get(seq) as Row | undefined);
  };

  const insert = (input: ValidNewMessage, now: number): TeamMessage => {
    const kind = input.kind ?? "message";
    let workItemId = input.workItemId;
    let threadId = input.threadId;
    if (workItemId === undefined || threadId === undefined) {
      const parentSeq = input.parentMessageId ? seqOf(input.parentMessageId) : undefined;
      const parent =
        parentSeq === undefined
          ? undefined
          : (sql.parentOf.get(parentSeq) as { work_item_id: string; thread_id: string } | undefined);
      const answers = kind === "reply" || kind === "followup";
      workItemId ??= answers && parent ? parent.work_item_id : `wi_${randomUUID()}`;
      threadId ??= parent?.thread_id ?? `th_${randomUUID()}`;
    }
    const { seq } = sql.insert.get(
      `msg_${storeId}_`,
      workItemId,
      threadId,
      input.parentMessageId ?? null,
      input.from,
      input.to,
      kind,
      input.content,
      input.metadataJson,
      now,
      now,
      `[[null,"pending",${now},null,null]]`,
    ) as { seq: number };
    return {
      id: `msg_${storeId}_${seq}`,
      workItemId,
      threadId,
      ...(input.parentMessageId ? { parentMessageId: input.parentMessageId } : {}),
      from: input.from,
      to: input.to,
      kind,
      content: input.content,
      status: "pending",
      metadata: parseObject(input.metadataJson),
      createdAt: now,
      updatedAt: now,
      attempts: 0,
    };
  };

  /** A message as a write left it, from the columns it returned and what the write itself set. */
  const written = (
    row: Payload,
    status: TeamMessageStatus,
    now: number,
    outcome: string | null,
  ): TeamMessage => {
    const message: TeamMessage = {
      id: `msg_${storeId}_${row.seq}`,
      workItemId: row.work_item_id,
      threadId: row.thread_id,
      ...(row.parent_message_id ? { parentMessageId: row.parent_message_id } : {}),
      from: row.from_mailbox,
      to: row.to_mailbox,
      kind: row.kind,
      content: row.content,
      status,
      metadata: parseObject(row.metadata),
      createdAt: row.created_at,
      updatedAt: now,
      attempts: row.attempts,
    };
    if (outcome) message.outcome = JSON.parse(outcome);
    return message;
  };

  const claimed = (
    row: Payload | undefined,
    owner: string,
    token: string,
    now: number,
    leaseMs: number,
  ): ClaimedTeamMessage | undefined =>
    row
      ? {
          ...written(row, "processing", now, null),
          status: "processing",
          claimedBy: owner,
          leaseExpiresAt: now + leaseMs,
          claimToken: token,
        }
      : undefined;

  const settle = (
    messageId: string,
    claimToken: string,
    status: "completed" | "failed",
    options: SettleOptions | undefined,
  ): SettledTeamMessage | undefined => {
    const sends = options?.send?.length ? options.send.map(validateNew) : [];
    assertOutcome(options?.outcome);
    const seq = seqOf(messageId);
    if (seq === undefined || typeof claimToken !== "string") return undefined;
    const outcome = options?.outcome ? JSON.stringify(options.outcome) : null;
    const finish = (now: number) => {
      const row = sql.settle.get(status, now, status, outcome, now, seq, claimToken) as Payload | undefined;
      return row && written(row, status, now, outcome);
    };
    let result: SettledTeamMessage | undefined;
    if (!sends.length) {
      // One statement, one transaction.
      const message = finish(Date.now());
      result = message ? { message, sent: [] } : undefined;
    } else {
      // The status change and the messages it sends commit together.
      result = inTransaction(() => {
        const now = Date.now();
        const message = finish(now);
        return message ? { message, sent: sends.map(input => insert(input, now)) } : undefined;
      });
    }
    if (result) for (const changed of [result.message, ...result.sent]) hub.notify(changed.to);
    return result;
  };

  return {
    journalMode,
    async send(input) {
      const sent = insert(validateNew(input), Date.now());
      hub.notify(sent.to);
      return sent;
    },
    async get(messageId) {
      const message = byId(messageId);
      return message ? toMessage(message) : undefined;
    },
    async inbox(mailboxId, inboxOptions) {
      const status = inboxOptions?.status ?? "pending";
      if (!STATUSES.has(status)) {
        throw new InvalidOptionError(
          `inbox(): unknown status ${JSON.stringify(status)}; use pending, processing, completed, failed, cancelled or all.`,
        );
      }
      const limit = inboxOptions?.limit ?? -1;
      if (limit !== -1 && (!Number.isInteger(limit) || limit <= 0)) {
        throw new InvalidOptionError(
          `inbox(): limit must be a positive integer, got ${JSON.stringify(limit)}.`,
        );
      }
      const rows = (
        status === "all"
          ? sql.inboxAll.all(mailboxId, limit)
          : status === "pending"
            ? sql.inboxPending.all(mailboxId, limit)
            : status === "processing"
              ? sql.inboxProcessing.all(mailboxId, limit)
              : sql.inboxSettled.all(mailboxId, status, limit)
      ) as Row[];
      return rows.map(toMessage);
    },
    async thread(threadId) {
      return (sql.thread.all(threadId) as Row[]).map(toMessage);
    },
    async claimNext(mailboxId, claimOptions) {
      const leaseMs = leaseOf(claimOptions?.leaseMs);
      const owner = claimOptions?.owner ?? defaultOwner();
      const token = randomUUID();
      const now = Date.now();
      return claimed(
        sql.claimNext.get(
          owner,
          token,
          now + leaseMs,
          now,
          now,
          token,
          owner,
          mailboxId,
          mailboxId,
          now,
          mailboxId,
          now,
        ) as Payload | undefined,
        owner,
        token,
        now,
        leaseMs,
      );
    },
    async claim(messageId, claimOptions) {
      const leaseMs = leaseOf(claimOptions?.leaseMs);
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      const owner = claimOptions?.owner ?? defaultOwner();
      const token = randomUUID();
      const now = Date.now();
      return claimed(
        sql.claim.get(owner, token, now + leaseMs, now, now, token, owner, seq, now, now) as
          | Payload
          | undefined,
        owner,
        token,
        now,
        leaseMs,
      );
    },
    async renew(messageId, claimToken, leaseMs) {
      const ms = leaseOf(leaseMs ?? DEFAULT_LEASE_MS);
      const seq = seqOf(messageId);
      if (seq === undefined || typeof claimToken !== "string") return false;
      const now = Date.now();
      return sql.renew.get(now + ms, now, seq, claimToken) !== undefined;
    },
    async complete(messageId, claimToken, settleOptions) {
      return settle(messageId, claimToken, "completed", settleOptions);
    },
    async fail(messageId, claimToken, settleOptions) {
      return settle(messageId, claimToken, "failed", settleOptions);
    },
    async release(messageId, claimToken) {
      const seq = seqOf(messageId);
      if (seq === undefined || typeof claimToken !== "string") return undefined;
      const now = Date.now();
      const row = sql.settle.get("pending", now, "pending", null, now, seq, claimToken) as
        | Payload
        | undefined;
      if (!row) return undefined;
      const released = written(row, "pending", now, null);
      hub.notify(released.to);
      return released;
    },
    async cancel(messageId, cancelOptions) {
      assertOutcome(cancelOptions?.outcome);
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      const now = Date.now();
      const outcome = cancelOptions?.outcome ? JSON.stringify(cancelOptions.outcome) : null;
      const row = sql.cancel.get("cancelled", now, outcome, now, seq, cancelOptions?.claimToken ?? null) as
        | Payload
        | undefined;
      if (!row) return undefined;
      const cancelled = written(row, "cancelled", now, outcome);
      hub.notify(cancelled.to);
      return cancelled;
    },
    async transitions(messageId) {
      const seq = seqOf(messageId);
      const found =
        seq === undefined ? undefined : (sql.history.get(seq) as { id: string; history: string } | undefined);
      if (!found) return [];
      return (JSON.parse(found.history) as LoggedTransition[]).map(([from, to, at, claimToken, owner]) => {
        const transition: TeamMessageTransition = { messageId: found.id, from, to, at };
        if (claimToken) transition.claimToken = claimToken;
        if (owner) transition.owner = owner;
        return transition;
      });
    },
    async watch(mailboxIds, watchOptions) {
      if (!Array.isArray(mailboxIds) || mailboxIds.some(id => typeof id !== "string")) {
        throw new InvalidOptionError("watch(): mailboxIds must be an array of mailbox ids.");
      }
      const ids = [...new Set(mailboxIds)];
      const watch = createNotifiableWatch({
        ...watchOptions,
        onClose: () => {
          hub.remove(watch, ids);
          own.delete(watch);
        },
      });
      if (watch.closed) return watch;
      own.add(watch);
      // Fingerprints from now on: a change another connection commits after this point is noticed.
      poller.version = (sql.dataVersion.get() as { data_version: unknown }).data_version;
      for (const id of ids) if (!hub.watches.has(id)) poller.fingerprints.set(id, fingerprintOf(id));
      hub.add(watch, ids);
      poller.interval = minPollMs;
      schedule();
      return watch;
    },
    async close() {
      // The connection is the host's; only the watch poller is ours.
      for (const watch of [...own]) await watch.close();
      if (poller.timer) clearTimeout(poller.timer);
      poller.timer = undefined;
    },
  };
}

/** The watches of one connection and table prefix: local writes wake them directly, the poller wakes them for others'. */
interface WatchHub {
  watches: Map<string, Set<NotifiableMailboxWatch>>;
  notify(mailboxId: string): void;
  add(watch: NotifiableMailboxWatch, mailboxIds: string[]): void;
  remove(watch: NotifiableMailboxWatch, mailboxIds: string[]): void;
}

const hubs = new WeakMap<object, Map<string, WatchHub>>();

/** One hub per connection and prefix, so two mailbox objects on one connection still hear each other. */
function hubFor(db: object, prefix: string): WatchHub {
  const byPrefix = hubs.get(db) ?? new Map<string, WatchHub>();
  hubs.set(db, byPrefix);
  let hub = byPrefix.get(prefix);
  if (!hub) {
    const watches = new Map<string, Set<NotifiableMailboxWatch>>();
    hub = {
      watches,
      notify: mailboxId => {
        for (const watch of watches.get(mailboxId) ?? []) watch.notify();
      },
      add: (watch, mailboxIds) => {
        for (const id of mailboxIds) {
          const set = watches.get(id) ?? new Set();
          set.add(watch);
          watches.set(id, set);
        }
      },
      remove: (watch, mailboxIds) => {
        for (const id of mailboxIds) {
          const set = watches.get(id);
          set?.delete(watch);
          if (set && !set.size) watches.delete(id);
        }
      },
    };
    byPrefix.set(prefix, hub);
  }
  return hub;
}

function toMessage(row: Row): TeamMessage {
  const message: TeamMessage = {
    id: row.id,
    workItemId: row.work_item_id,
    threadId: row.thread_id,
    ...(row.parent_message_id ? { parentMessageId: row.parent_message_id } : {}),
    from: row.from_mailbox,
    to: row.to_mailbox,
    kind: row.kind,
    content: row.content,
    status: row.status,
    metadata: parseObject(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    attempts: row.attempts,
  };
  if (row.status === "processing") {
    if (row.claimed_by) message.claimedBy = row.claimed_by;
    if (row.lease_expires_at !== null) message.leaseExpiresAt = row.lease_expires_at;
  }
  if (row.outcome) message.outcome = JSON.parse(row.outcome);
  return message;
}

function defaultOwner(): string {
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

function validateNew(input: NewTeamMessage): ValidNewMessage {
  if (!input || typeof input !== "object") throw new InvalidOptionError("send(): expected a message object.");
  for (const key of ["from", "to"] as const) {
    if (typeof input[key] !== "string" || input[key].trim() === "") {
      throw new InvalidOptionError(
        `send(): "${key}" must be a mailbox id such as "engineering::researcher".`,
      );
    }
  }
  if (typeof input.content !== "string") throw new InvalidOptionError('send(): "content" must be a string.');
  if (input.kind !== undefined && !KINDS.has(input.kind)) {
    throw new InvalidOptionError(
      `send(): unknown kind ${JSON.stringify(input.kind)}; use delegation, message, reply or followup.`,
    );
  }
  let metadataJson = "{}";
  if (input.metadata !== undefined) {
    if (!input.metadata || typeof input.metadata !== "object" || Array.isArray(input.metadata)) {
      throw new InvalidOptionError("send(): metadata must be a plain object.");
    }
    try {
      metadataJson = JSON.stringify(input.metadata);
    } catch (error) {
      throw new InvalidOptionError(`send(): metadata must be JSON-serialisable: ${String(error)}`);
    }
  }
  return { ...input, metadataJson };
}

/** A stored JSON object, parsed into a fresh copy (the empty one, the common case, without the parser). */
function parseObject(json: string): Record<string, unknown> {
  return json === "{}" ? {} : JSON.parse(json);
}
