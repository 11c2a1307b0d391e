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

/** An entry of a version-1/2 row's transition log (a JSON array of them): [from, to, at, claimToken, owner]. */
type LoggedTransition = [TeamMessageStatus | null, TeamMessageStatus, number, string | null, string | null];
/** An entry appended from schema version 3 on: [to, at], or [to, at, claimToken, owner] for a claim. */
type AppendedTransition = [TeamMessageStatus, number, string?, string?];

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
  const idPrefix = `msg_${storeId}_`;
  const workItemPrefix = `wi_${storeId}_`;
  const threadPrefix = `th_${storeId}_`;
  /** The row number a message id of this store embeds (undefined for a foreign or malformed id). */
  const seqOf = (messageId: string): number | undefined => {
    const match = typeof messageId === "string" ? idPattern.exec(messageId) : null;
    return match ? Number(match[1]) : undefined;
  };

  // Open-message queries name the partial index of open messages (INDEXED BY), always with an equality on status,
  // so each is a seek on (recipient, status) that reads in order.
  // Every operation on the hot path is ONE statement, prepared here once: a statement that writes is its own
  // transaction in SQLite (autocommit takes the write lock before it reads, waiting up to busy_timeout), so a claim —
  // find the oldest claimable message, mark it processing — is a single atomic UPDATE … RETURNING, and a settle is a
  // single UPDATE guarded by the claim token. Only a settle that also sends messages opens an explicit transaction.
  // The transition log is appended as text (`history || ?`, the entry built here: see schema.ts, version 3), so no
  // row is read back first and SQLite does no JSON work.
  // A write returns only what its caller does not know already (status, times, claim and outcome it set itself):
  // every column read back is a string converted into the JavaScript heap.
  const payload = `seq, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, metadata, created_at, attempts`;
  const cols = `seq, id, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, status, metadata, created_at, updated_at, attempts, claimed_by, lease_expires_at, outcome`;
  const takeSet = `status = 'processing', claimed_by = ?, claim_token = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ?, history = history || ?`;
  const settleSql = `UPDATE ${t.messages} SET history = history || ?, status = ?, outcome = ?, claimed_by = NULL, claim_token = NULL, lease_expires_at = NULL, updated_at = ?
       WHERE seq = ? AND status = 'processing' AND claim_token = ?`;
  const sql = {
    // seq is the next row number, computed in the same statement; the id embeds it, and so do the work item and
    // thread ids the message starts (when it joins none): unique wherever message ids are, with no random number.
    insert: db.prepare(
      `INSERT INTO ${t.messages} (seq, id, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, status, metadata, created_at, updated_at, attempts, history)
       SELECT next, ? || next, IFNULL(?, ? || next), IFNULL(?, ? || next), ?, ?, ?, ?, ?, 'pending', ?, ?, ?, 0, '' FROM (SELECT IFNULL(MAX(seq), 0) + 1 AS next FROM ${t.messages})`,
    ),
    // For drivers whose run() does not report them (better-sqlite3's and node:sqlite's do).
    lastRowid: db.prepare("SELECT last_insert_rowid() AS n"),
    changes: db.prepare("SELECT changes() AS n"),
    bySeq: db.prepare(`SELECT ${cols} FROM ${t.messages} WHERE seq = ?`),
    parentOf: db.prepare(`SELECT work_item_id, thread_id FROM ${t.messages} WHERE seq = ?`),
    inboxAll: db.prepare(`SELECT ${cols} FROM ${t.messages} WHERE to_mailbox = ? ORDER BY seq LIMIT ?`),
    inboxPending: db.prepare(
      `SELECT ${cols} FROM ${t.messages} INDEXED BY ${t.messages}_open WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT ?`,
    ),
    inboxProcessing: db.prepare(
      `SELECT ${cols} FROM ${t.messages} INDEXED BY ${t.messages}_open WHERE to_mailbox = ? AND status = 'processing' ORDER BY seq LIMIT ?`,
    ),
    inboxSettled: db.prepare(
      `SELECT ${cols} FROM ${t.messages} WHERE to_mailbox = ? AND status = ? ORDER BY seq LIMIT ?`,
    ),
    thread: db.prepare(`SELECT ${cols} FROM ${t.messages} WHERE thread_id = ? ORDER BY seq`),
    // The oldest claimable message — the oldest pending one or a processing one whose lease expired — unless one
    // is processing under a live lease (members work serially). One pass over the mailbox's processing messages
    // (normally none or one) answers both "is one live?" and "the oldest expired one", one seek to the mailbox's
    // pending entries of the same index finds the oldest pending one; NULL (no row updated) when one is live or there
    // is nothing.
    claimNext: db.prepare(
      `UPDATE ${t.messages} SET ${takeSet}
       WHERE seq = (SELECT IIF(p.live, NULL, MIN(IFNULL(p.first, q.first), IFNULL(q.first, p.first))) FROM
           (SELECT MAX(IFNULL(lease_expires_at, 0) > ?) AS live, MIN(seq) AS first FROM ${t.messages} INDEXED BY ${t.messages}_open WHERE to_mailbox = ? AND status = 'processing') AS p,
           (SELECT (SELECT seq FROM ${t.messages} INDEXED BY ${t.messages}_open WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT 1) AS first) AS q)
       RETURNING ${payload}`,
    ),
    claim: db.prepare(
      `UPDATE ${t.messages} SET ${takeSet}
       WHERE seq = ? AND (status = 'pending' OR (status = 'processing' AND IFNULL(lease_expires_at, 0) <= ?))
         AND NOT EXISTS (SELECT 1 FROM ${t.messages} AS other INDEXED BY ${t.messages}_open WHERE other.to_mailbox = ${t.messages}.to_mailbox AND other.status = 'processing' AND other.lease_expires_at > ? AND other.seq <> ${t.messages}.seq)
       RETURNING ${payload}`,
    ),
    renew: db.prepare(
      `UPDATE ${t.messages} SET lease_expires_at = ?, updated_at = ? WHERE seq = ? AND status = 'processing' AND claim_token = ? RETURNING seq`,
    ),
    // Settle (complete, fail) and release: only the claim's holder. Cancel: a pending message, or the holder.
    settle: db.prepare(`${settleSql} RETURNING ${payload}`),
    // The same for a claim this object handed out: it knows the message already (see `handedOut`).
    settleKnown: db.prepare(settleSql),
    cancel: db.prepare(
      `UPDATE ${t.messages} SET history = history || ?, status = 'cancelled', outcome = ?, claimed_by = NULL, claim_token = NULL, lease_expires_at = NULL, updated_at = ?
       WHERE seq = ? AND (status = 'pending' OR (status = 'processing' AND claim_token = ?)) RETURNING ${payload}`,
    ),
    history: db.prepare(`SELECT id, created_at, history FROM ${t.messages} WHERE seq = ?`),
    dataVersion: db.prepare("PRAGMA data_version"),
    // What a watcher cares about in one mailbox, from the partial index alone: pending and processing counts, the newest.
    fingerprint: db.prepare(
      `SELECT COUNT(*) AS n, MAX(seq) AS top FROM ${t.messages} INDEXED BY ${t.messages}_open WHERE to_mailbox = ? AND status = 'pending'
       UNION ALL
       SELECT COUNT(*), MAX(seq) FROM ${t.messages} INDEXED BY ${t.messages}_open WHERE to_mailbox = ? AND status = 'processing'`,
    ),
  } satisfies Record<string, SQLiteStatementLike>;
  // A write without RETURNING (SQLite builds a temporary table for the rows a RETURNING clause returns, at every
  // run): what it did, from run()'s result.
  const changed = (result: unknown): boolean =>
    Number((result as { changes?: unknown })?.changes ?? (sql.changes.get() as { n: number }).n) > 0;
  const insertedRow = (result: unknown): number =>
    Number(
      (result as { lastInsertRowid?: unknown })?.lastInsertRowid ?? (sql.lastRowid.get() as { n: number }).n,
    );

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
    // undefined: the message starts its own work item or thread, whose id the insert derives from the row number.
    let workItemId = input.workItemId;
    let threadId = input.threadId;
    if ((workItemId === undefined || threadId === undefined) && input.parentMessageId) {
      const parentSeq = seqOf(input.parentMessageId);
      const parent =
        parentSeq === undefined
          ? undefined
          : (sql.parentOf.get(parentSeq) as { work_item_id: string; thread_id: string } | undefined);
      if (parent) {
        if (kind === "reply" || kind === "followup") workItemId ??= parent.work_item_id;
        threadId ??= parent.thread_id;
      }
    }
    const seq = insertedRow(
      sql.insert.run(
        idPrefix,
        workItemId ?? null,
        workItemPrefix,
        threadId ?? null,
        threadPrefix,
        input.parentMessageId ?? null,
        input.from,
        input.to,
        kind,
        input.content,
        input.metadataJson,
        now,
        now,
      ),
    );
    return {
      id: idPrefix + seq,
      workItemId: workItemId ?? workItemPrefix + seq,
      threadId: threadId ?? threadPrefix + seq,
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

  /**
   * A message as a write left it, from the columns it returned and what the write itself set. The row is read field
   * by field, never spread: a driver's row objects are often dictionaries (better-sqlite3 builds them with
   * Object::New(names, values)), and copying one is slower than the statement that returned it.
   */
  const written = (
    row: Payload,
    status: TeamMessageStatus,
    now: number,
    outcome: string | null,
  ): TeamMessage => messageOf(row, idPrefix + row.seq, status, now, outcome);

  /**
   * The claims this object handed out and has not seen end, by token: every column a settle returns is one no
   * write changes after the claim (the message's content and addressing never change, and only a new claim — a new
   * token — counts an attempt), so the settle of a claim found here returns just its row number instead of reading
   * the message back into JavaScript. A claim not found (another connection's, or one pushed out of this bounded
   * map) is settled the same way and read back.
   */
  const handedOut = new Map<string, Payload>();
  const HANDED_OUT_LIMIT = 1024;

  const claimed = (
    row: Payload | undefined,
    owner: string,
    token: string,
    now: number,
    leaseMs: number,
  ): ClaimedTeamMessage | undefined => {
    if (!row) return undefined;
    if (handedOut.size >= HANDED_OUT_LIMIT) handedOut.delete(handedOut.keys().next().value!);
    handedOut.set(token, row);
    const message = written(row, "processing", now, null) as ClaimedTeamMessage;
    message.claimedBy = owner;
    message.leaseExpiresAt = now + leaseMs;
    message.claimToken = token;
    return message;
  };

  /** Ends a claim (settle or release): the message as the write left it, or undefined when the claim was not live. */
  const endClaim = (
    seq: number,
    claimToken: string,
    status: "completed" | "failed" | "pending",
    outcome: string | null,
    now: number,
  ): TeamMessage | undefined => {
    const entry = `,["${status}",${now}]`;
    const known = handedOut.get(claimToken);
    if (known !== undefined) handedOut.delete(claimToken); // a token ends once, whether or not it was still live
    const row = (
      known?.seq === seq
        ? changed(sql.settleKnown.run(entry, status, outcome, now, seq, claimToken)) && known
        : first(sql.settle, entry, status, outcome, now, seq, claimToken)
    ) as Payload | undefined;
    return row && written(row, status, now, outcome);
  };

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
    const finish = (now: number) => endClaim(seq, claimToken, status, outcome, now);
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
        first(
          sql.claimNext,
          owner,
          token,
          now + leaseMs,
          now,
          claimEntry(now, token, owner),
          now,
          mailboxId,
          mailboxId,
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
        first(sql.claim, owner, token, now + leaseMs, now, claimEntry(now, token, owner), seq, now, now) as
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
      return first(sql.renew, now + ms, now, seq, claimToken) !== undefined;
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
      const released = endClaim(seq, claimToken, "pending", null, Date.now());
      if (released) hub.notify(released.to);
      return released;
    },
    async cancel(messageId, cancelOptions) {
      assertOutcome(cancelOptions?.outcome);
      const seq = seqOf(messageId);
      if (seq === undefined) return undefined;
      const now = Date.now();
      const outcome = cancelOptions?.outcome ? JSON.stringify(cancelOptions.outcome) : null;
      if (cancelOptions?.claimToken) handedOut.delete(cancelOptions.claimToken);
      const row = first(
        sql.cancel,
        `,["cancelled",${now}]`,
        outcome,
        now,
        seq,
        cancelOptions?.claimToken ?? null,
      ) as Payload | undefined;
      if (!row) return undefined;
      const cancelled = written(row, "cancelled", now, outcome);
      hub.notify(cancelled.to);
      return cancelled;
    },
    async transitions(messageId) {
      const seq = seqOf(messageId);
      const found =
        seq === undefined
          ? undefined
          : (sql.history.get(seq) as { id: string; created_at: number; history: string } | undefined);
      return found ? transitionsOf(found.id, found.created_at, found.history) : [];
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

/** A stored row as the port reports it. */
function toMessage(row: Row): TeamMessage {
  const message = messageOf(row, row.id, row.status, row.updated_at, row.outcome);
  if (row.status === "processing") {
    if (row.claimed_by) message.claimedBy = row.claimed_by;
    if (row.lease_expires_at !== null) message.leaseExpiresAt = row.lease_expires_at;
  }
  return message;
}

/**
 * The one mapping of a row to a message: the columns no write changes after the send from `row`, the state from the
 * caller (a read's row, or what a write set itself and did not read back). A claim's holder and lease are added by
 * the caller.
 */
function messageOf(
  row: Payload,
  id: string,
  status: TeamMessageStatus,
  updatedAt: number,
  outcome: string | null,
): TeamMessage {
  const message: TeamMessage = {
    id,
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
    updatedAt,
    attempts: row.attempts,
  };
  if (outcome) message.outcome = JSON.parse(outcome);
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

/**
 * Runs a statement that writes and returns its first row. Through all(), not get(): get() resets the statement after
 * its first row, and SQLite runs the WAL's automatic checkpoint only when a statement steps to its end — writes
 * made through get() never checkpoint, and the WAL file grows without bound (700 MB per 20,000 messages).
 */
function first(statement: SQLiteStatementLike, ...params: unknown[]): unknown {
  return statement.all(...params)[0];
}

/** A claim's entry of the transition log (schema version 3): what a later settle of the same claim refers back to. */
function claimEntry(now: number, token: string, owner: string): string {
  return `,["processing",${now},${JSON.stringify(token)},${JSON.stringify(owner)}]`;
}

/**
 * A row's transition log as the port reports it. Rows written by schema version 1 or 2 begin with their JSON array
 * of full entries; entries appended since version 3 are `,[to,at]` or `,[to,at,claimToken,owner]` (see schema.ts):
 * the send is the row's creation, `from` the previous `to`, and a transition out of processing settles the claim
 * before it, whose token and owner it reports.
 */
function transitionsOf(messageId: string, createdAt: number, history: string): TeamMessageTransition[] {
  const entries = JSON.parse(`[${history.startsWith(",") ? history.slice(1) : history}]`) as Array<
    LoggedTransition[] | AppendedTransition
  >;
  const log: TeamMessageTransition[] = [];
  let claim: { token: string | null; owner: string | null } | undefined;
  const add = (
    from: TeamMessageStatus | null,
    to: TeamMessageStatus,
    at: number,
    token: string | null,
    owner: string | null,
  ) => {
    const transition: TeamMessageTransition = { messageId, from, to, at };
    if (token) transition.claimToken = token;
    if (owner) transition.owner = owner;
    log.push(transition);
    claim = to === "processing" ? { token, owner } : undefined;
  };
  let rest = entries;
  const head = entries[0];
  if (Array.isArray(head) && (head.length === 0 || Array.isArray(head[0]))) {
    for (const [from, to, at, token, owner] of head as LoggedTransition[]) add(from, to, at, token, owner);
    rest = entries.slice(1);
  } else {
    add(null, "pending", createdAt, null, null);
  }
  for (const entry of rest as AppendedTransition[]) {
    const [to, at, token, owner] = entry;
    const from = log.at(-1)?.to ?? null;
    if (token !== undefined) add(from, to, at, token, owner ?? null);
    else if (from === "processing" && claim) add(from, to, at, claim.token, claim.owner);
    else add(from, to, at, null, null);
  }
  return log;
}

/** A stored JSON object, parsed into a fresh copy (the empty one, the common case, without the parser). */
function parseObject(json: string): Record<string, unknown> {
  return json === "{}" ? {} : JSON.parse(json);
}
