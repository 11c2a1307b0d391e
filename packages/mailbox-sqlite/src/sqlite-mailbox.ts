import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { InvalidOptionError } from "@agent-lattice/core";
import {
  type ClaimedTeamMessage,
  type ClaimOptions,
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
  claim_token: string | null;
  lease_expires_at: number | null;
  outcome: string | null;
  history: string;
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

  const sql = {
    insert: db.prepare(
      `INSERT INTO ${t.messages} (seq, id, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, status, metadata, created_at, updated_at, attempts, history)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, 0, ?)`,
    ),
    bySeq: db.prepare(`SELECT * FROM ${t.messages} WHERE seq = ?`),
    nextSeq: db.prepare(`SELECT IFNULL(MAX(seq), 0) + 1 AS next FROM ${t.messages}`),
    inboxAll: db.prepare(`SELECT * FROM ${t.messages} WHERE to_mailbox = ? ORDER BY seq LIMIT ?`),
    inboxStatus: db.prepare(
      `SELECT * FROM ${t.messages} WHERE to_mailbox = ? AND status = ? ORDER BY seq LIMIT ?`,
    ),
    thread: db.prepare(`SELECT * FROM ${t.messages} WHERE thread_id = ? ORDER BY seq`),
    busy: db.prepare(
      `SELECT id FROM ${t.messages} WHERE to_mailbox = ? AND status = 'processing' AND lease_expires_at > ? AND seq <> ? LIMIT 1`,
    ),
    // A claim's one read: the mailbox's processing messages (at most one live, maybe some expired) and its oldest
    // pending one, both straight from the (recipient, status, seq) index.
    candidates: db.prepare(
      `SELECT * FROM ${t.messages} WHERE to_mailbox = ? AND status = 'processing'
       UNION ALL SELECT * FROM (SELECT * FROM ${t.messages} WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT 1)`,
    ),
    take: db.prepare(
      `UPDATE ${t.messages} SET status = 'processing', claimed_by = ?, claim_token = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ?, history = json_insert(history, '$[#]', json(?)) WHERE seq = ?`,
    ),
    renew: db.prepare(`UPDATE ${t.messages} SET lease_expires_at = ?, updated_at = ? WHERE seq = ?`),
    finish: db.prepare(
      `UPDATE ${t.messages} SET status = ?, outcome = ?, claimed_by = NULL, claim_token = NULL, lease_expires_at = NULL, updated_at = ?, history = json_insert(history, '$[#]', json(?)) WHERE seq = ?`,
    ),
    history: db.prepare(`SELECT id, history FROM ${t.messages} WHERE seq = ?`),
    dataVersion: db.prepare("PRAGMA data_version"),
    // What a watcher cares about in one mailbox, from the index alone: open messages, pending ones, the newest.
    fingerprint: db.prepare(
      `SELECT COUNT(*) AS open, SUM(status = 'pending') AS pending, MAX(seq) AS top FROM ${t.messages} WHERE to_mailbox = ? AND status IN ('pending', 'processing')`,
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
  const fingerprintOf = (mailboxId: string) => JSON.stringify(sql.fingerprint.get(mailboxId));
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

  const insert = (input: NewTeamMessage, now: number): TeamMessage => {
    const parent = input.parentMessageId ? byId(input.parentMessageId) : undefined;
    const kind = input.kind ?? "message";
    const answers = kind === "reply" || kind === "followup";
    const seq = (sql.nextSeq.get() as { next: number }).next;
    const id = `msg_${storeId}_${seq}`;
    const workItemId = input.workItemId ?? (answers && parent ? parent.work_item_id : `wi_${randomUUID()}`);
    const threadId = input.threadId ?? parent?.thread_id ?? `th_${randomUUID()}`;
    const metadata = input.metadata ?? {};
    const history: LoggedTransition[] = [[null, "pending", now, null, null]];
    sql.insert.run(
      seq,
      id,
      workItemId,
      threadId,
      input.parentMessageId ?? null,
      input.from,
      input.to,
      kind,
      input.content,
      JSON.stringify(metadata),
      now,
      now,
      JSON.stringify(history),
    );
    return {
      id,
      workItemId,
      threadId,
      ...(input.parentMessageId ? { parentMessageId: input.parentMessageId } : {}),
      from: input.from,
      to: input.to,
      kind,
      content: input.content,
      status: "pending",
      metadata: structuredClone(metadata),
      createdAt: now,
      updatedAt: now,
      attempts: 0,
    };
  };

  const claimable = (message: Row, now: number) =>
    message.status === "pending" ||
    (message.status === "processing" && (message.lease_expires_at ?? 0) <= now);

  const take = (message: Row, options: ClaimOptions | undefined, now: number): ClaimedTeamMessage => {
    const leaseMs = leaseOf(options?.leaseMs);
    const owner = options?.owner ?? defaultOwner();
    const token = randomUUID();
    const logged: LoggedTransition = [message.status, "processing", now, token, owner];
    sql.take.run(owner, token, now + leaseMs, now, JSON.stringify(logged), message.seq);
    const { outcome: _outcome, ...claimed } = toMessage(message);
    return {
      ...claimed,
      status: "processing",
      claimedBy: owner,
      leaseExpiresAt: now + leaseMs,
      attempts: message.attempts + 1,
      updatedAt: now,
      claimToken: token,
    };
  };

  const held = (messageId: string, claimToken: string): Row | undefined => {
    const message = byId(messageId);
    return message?.status === "processing" && message.claim_token === claimToken ? message : undefined;
  };

  const finish = (
    message: Row,
    status: TeamMessageStatus,
    outcome: TeamMessageOutcome | undefined,
    now: number,
  ): TeamMessage => {
    const logged: LoggedTransition = [message.status, status, now, message.claim_token, message.claimed_by];
    sql.finish.run(
      status,
      outcome ? JSON.stringify(outcome) : null,
      now,
      JSON.stringify(logged),
      message.seq,
    );
    const { claimedBy: _by, leaseExpiresAt: _lease, outcome: _old, ...rest } = toMessage(message);
    return { ...rest, status, updatedAt: now, ...(outcome ? { outcome: structuredClone(outcome) } : {}) };
  };

  const settle = (
    messageId: string,
    claimToken: string,
    status: "completed" | "failed",
    options: SettleOptions | undefined,
  ): SettledTeamMessage | undefined => {
    const sends = (options?.send ?? []).map(validateNew);
    assertOutcome(options?.outcome);
    const result = inTransaction(() => {
      const message = held(messageId, claimToken);
      if (!message) return undefined;
      const now = Date.now();
      const settled = finish(message, status, options?.outcome, now);
      const sent = sends.map(input => insert(input, now));
      return { message: settled, sent };
    });
    if (result) for (const changed of [result.message, ...result.sent]) hub.notify(changed.to);
    return result;
  };

  return {
    journalMode,
    async send(input) {
      const valid = validateNew(input);
      const sent = inTransaction(() => insert(valid, Date.now()));
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
        status === "all" ? sql.inboxAll.all(mailboxId, limit) : sql.inboxStatus.all(mailboxId, status, limit)
      ) as Row[];
      return rows.map(toMessage);
    },
    async thread(threadId) {
      return (sql.thread.all(threadId) as Row[]).map(toMessage);
    },
    async claimNext(mailboxId, claimOptions) {
      leaseOf(claimOptions?.leaseMs);
      return inTransaction(() => {
        const now = Date.now();
        let next: Row | undefined;
        for (const candidate of sql.candidates.all(mailboxId, mailboxId) as Row[]) {
          // A live claim means the member is at work: its mailbox waits (members work serially).
          if (candidate.status === "processing" && (candidate.lease_expires_at ?? 0) > now) return undefined;
          if (!next || candidate.seq < next.seq) next = candidate;
        }
        return next ? take(next, claimOptions, now) : undefined;
      });
    },
    async claim(messageId, claimOptions) {
      leaseOf(claimOptions?.leaseMs);
      return inTransaction(() => {
        const now = Date.now();
        const message = byId(messageId);
        if (!message || !claimable(message, now)) return undefined;
        if (sql.busy.get(message.to_mailbox, now, message.seq)) return undefined;
        return take(message, claimOptions, now);
      });
    },
    async renew(messageId, claimToken, leaseMs) {
      const ms = leaseOf(leaseMs ?? DEFAULT_LEASE_MS);
      return inTransaction(() => {
        const message = held(messageId, claimToken);
        if (!message) return false;
        const now = Date.now();
        sql.renew.run(now + ms, now, message.seq);
        return true;
      });
    },
    async complete(messageId, claimToken, settleOptions) {
      return settle(messageId, claimToken, "completed", settleOptions);
    },
    async fail(messageId, claimToken, settleOptions) {
      return settle(messageId, claimToken, "failed", settleOptions);
    },
    async release(messageId, claimToken) {
      const released = inTransaction(() => {
        const message = held(messageId, claimToken);
        if (!message) return undefined;
        return finish(message, "pending", undefined, Date.now());
      });
      if (released) hub.notify(released.to);
      return released;
    },
    async cancel(messageId, cancelOptions) {
      assertOutcome(cancelOptions?.outcome);
      const cancelled = inTransaction(() => {
        const message = byId(messageId);
        if (!message) return undefined;
        const allowed =
          message.status === "pending" ||
          (message.status === "processing" && message.claim_token === cancelOptions?.claimToken);
        if (!allowed) return undefined;
        return finish(message, "cancelled", cancelOptions?.outcome, Date.now());
      });
      if (cancelled) hub.notify(cancelled.to);
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
    metadata: JSON.parse(row.metadata),
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

function validateNew(input: NewTeamMessage): NewTeamMessage {
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
  let metadata: Record<string, unknown> = {};
  if (input.metadata !== undefined) {
    if (!input.metadata || typeof input.metadata !== "object" || Array.isArray(input.metadata)) {
      throw new InvalidOptionError("send(): metadata must be a plain object.");
    }
    try {
      metadata = JSON.parse(JSON.stringify(input.metadata));
    } catch (error) {
      throw new InvalidOptionError(`send(): metadata must be JSON-serialisable: ${String(error)}`);
    }
  }
  return { ...input, metadata };
}
