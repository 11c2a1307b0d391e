// T12: the SQLite mailbox passes the TeamMailbox conformance suite — on a file (WAL, two connections, four
// claimer processes at once) and in memory.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TeamMailbox } from "@agent-lattice/team";
import { describeTeamMailboxConformance } from "@agent-lattice/team/conformance";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSQLiteMailbox } from "../src/index.js";

const files = new WeakMap<TeamMailbox, { file: string; dir: string; db: Database.Database }>();

describeTeamMailboxConformance("createSQLiteMailbox() on a file", {
  create() {
    const dir = mkdtempSync(join(tmpdir(), "sqlite-mailbox-"));
    const file = join(dir, "team-mailbox.db");
    const db = new Database(file);
    const mailbox = createSQLiteMailbox({ database: db });
    files.set(mailbox, { file, dir, db });
    return mailbox;
  },
  reopen(mailbox) {
    return createSQLiteMailbox({ database: new Database(files.get(mailbox)!.file) });
  },
  destroy(mailbox) {
    const entry = files.get(mailbox)!;
    entry.db.close();
    rmSync(entry.dir, { recursive: true, force: true });
  },
  crossProcess: {
    module: new URL("./fixtures/open-sqlite-mailbox.mjs", import.meta.url),
    config: mailbox => ({ file: files.get(mailbox)!.file }),
    processes: 4,
  },
});

describeTeamMailboxConformance("createSQLiteMailbox() in memory", {
  create: () => createSQLiteMailbox({ database: new Database(":memory:") }),
});

describe("createSQLiteMailbox()", () => {
  it("turns on WAL for a file database and keeps memory journaling in memory", () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlite-mailbox-"));
    try {
      const db = new Database(join(dir, "m.db"));
      expect(createSQLiteMailbox({ database: db }).journalMode).toBe("wal");
      expect(db.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
      db.close();
      expect(createSQLiteMailbox({ database: new Database(":memory:") }).journalMode).toBe("memory");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("creates its schema once, records its version, and indexes the hot queries", () => {
    const db = new Database(":memory:");
    createSQLiteMailbox({ database: db });
    createSQLiteMailbox({ database: db }); // idempotent
    expect(db.prepare("SELECT version FROM team_mailbox_schema_version").all()).toEqual([{ version: 3 }]);
    // Lookups by id use the table's key: the id embeds the row number.
    const idPlan = db
      .prepare("EXPLAIN QUERY PLAN SELECT * FROM team_mailbox_messages WHERE seq = ?")
      .all(1) as Array<{ detail: string }>;
    expect(idPlan[0]!.detail).toContain("INTEGER PRIMARY KEY");
    const indexes = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        .all() as Array<{ name: string }>
    ).map(row => row.name);
    expect(indexes).toEqual(["team_mailbox_messages_open"]);
    const planOf = (query: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all("x") as Array<{ detail: string }>)
        .map(step => step.detail)
        .join(" | ");
    // Claims and open inboxes seek the partial index of open messages, in order (no sort) — without being told to.
    for (const status of ["pending", "processing"]) {
      const plan = planOf(
        `SELECT seq FROM team_mailbox_messages WHERE to_mailbox = ? AND status = '${status}' ORDER BY seq LIMIT 1`,
      );
      expect(plan).toContain("team_mailbox_messages_open (to_mailbox=? AND status=?)");
      expect(plan).not.toContain("TEMP B-TREE");
    }
  });

  it("upgrades a version-1 file in place: its messages stay claimable under the new indexes", async () => {
    const db = new Database(":memory:");
    // The version-1 schema, as the first release created it, with one pending message in it.
    db.exec(`
      CREATE TABLE team_mailbox_schema_version (version INTEGER NOT NULL, store_id TEXT NOT NULL);
      INSERT INTO team_mailbox_schema_version VALUES (1, 'abc123abc123');
      CREATE TABLE team_mailbox_messages (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, work_item_id TEXT NOT NULL,
        thread_id TEXT NOT NULL, parent_message_id TEXT, from_mailbox TEXT NOT NULL, to_mailbox TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('delegation', 'message', 'reply', 'followup')), content TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'cancelled')),
        metadata TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0, claimed_by TEXT, claim_token TEXT, lease_expires_at INTEGER,
        outcome TEXT, history TEXT NOT NULL DEFAULT '[]');
      CREATE INDEX team_mailbox_messages_by_mailbox_status ON team_mailbox_messages (to_mailbox, status, seq);
      INSERT INTO team_mailbox_messages (seq, id, work_item_id, thread_id, from_mailbox, to_mailbox, kind, content,
        status, metadata, created_at, updated_at, history)
      VALUES (1, 'msg_abc123abc123_1', 'wi_1', 'th_1', 't::lead', 't::a', 'message', 'old work', 'pending',
        '{"n":1}', 1, 1, '[[null,"pending",1,null,null]]');
    `);
    const mailbox = createSQLiteMailbox({ database: db });
    expect(db.prepare("SELECT version FROM team_mailbox_schema_version").all()).toEqual([{ version: 3 }]);
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
      .all();
    expect(indexes).toEqual([{ name: "team_mailbox_messages_open" }]);
    const claimed = await mailbox.claimNext("t::a");
    expect(claimed).toMatchObject({ id: "msg_abc123abc123_1", content: "old work", metadata: { n: 1 } });
    await mailbox.complete(claimed!.id, claimed!.claimToken);
    expect((await mailbox.transitions(claimed!.id)).map(step => step.to)).toEqual([
      "pending",
      "processing",
      "completed",
    ]);
    const next = await mailbox.send({ from: "t::lead", to: "t::a", content: "new work" });
    expect(next.id).toBe("msg_abc123abc123_2");
  });

  it("upgrades a version-2 file in place: a claim made under version 2 settles, and its log reads as one", async () => {
    const db = new Database(":memory:");
    // The version-2 schema with one message claimed under it (its log a JSON array of full entries).
    db.exec(`
      CREATE TABLE team_mailbox_schema_version (version INTEGER NOT NULL, store_id TEXT NOT NULL);
      INSERT INTO team_mailbox_schema_version VALUES (2, 'abc123abc123');
      CREATE TABLE team_mailbox_messages (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, work_item_id TEXT NOT NULL,
        thread_id TEXT NOT NULL, parent_message_id TEXT, from_mailbox TEXT NOT NULL, to_mailbox TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('delegation', 'message', 'reply', 'followup')), content TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'cancelled')),
        metadata TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0, claimed_by TEXT, claim_token TEXT, lease_expires_at INTEGER,
        outcome TEXT, history TEXT NOT NULL DEFAULT '[]');
      CREATE INDEX team_mailbox_messages_pending ON team_mailbox_messages (to_mailbox, seq) WHERE status = 'pending';
      CREATE INDEX team_mailbox_messages_processing ON team_mailbox_messages (to_mailbox, seq) WHERE status = 'processing';
      INSERT INTO team_mailbox_messages (seq, id, work_item_id, thread_id, from_mailbox, to_mailbox, kind, content,
        status, metadata, created_at, updated_at, attempts, claimed_by, claim_token, lease_expires_at, history)
      VALUES (1, 'msg_abc123abc123_1', 'wi_1', 'th_1', 't::lead', 't::a', 'message', 'old work', 'processing',
        '{}', 1, 2, 1, 'w1', 'token-1', 9999999999999,
        '[[null,"pending",1,null,null],["pending","processing",2,"token-1","w1"]]');
    `);
    const mailbox = createSQLiteMailbox({ database: db });
    expect(db.prepare("SELECT version FROM team_mailbox_schema_version").all()).toEqual([{ version: 3 }]);
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all(),
    ).toEqual([{ name: "team_mailbox_messages_open" }]);
    expect(await mailbox.claimNext("t::a")).toBeUndefined(); // its live claim still holds the mailbox
    const done = await mailbox.complete("msg_abc123abc123_1", "token-1", { outcome: { content: "ok" } });
    expect(done?.message).toMatchObject({
      status: "completed",
      content: "old work",
      outcome: { content: "ok" },
    });
    const log = await mailbox.transitions("msg_abc123abc123_1");
    expect(log).toEqual([
      { messageId: "msg_abc123abc123_1", from: null, to: "pending", at: 1 },
      {
        messageId: "msg_abc123abc123_1",
        from: "pending",
        to: "processing",
        at: 2,
        claimToken: "token-1",
        owner: "w1",
      },
      {
        messageId: "msg_abc123abc123_1",
        from: "processing",
        to: "completed",
        at: done!.message.updatedAt,
        claimToken: "token-1",
        owner: "w1",
      },
    ]);
  });

  it("keeps the WAL bounded: its writes reach SQLite's automatic checkpoint", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlite-mailbox-"));
    try {
      const file = join(dir, "team-mailbox.db");
      const db = new Database(file);
      const mailbox = createSQLiteMailbox({ database: db });
      // About 8 WAL pages per message: 600 messages write ≈ 4,800 pages (20 MB) when nothing checkpoints; the
      // automatic checkpoint (every 1,000 pages by default) keeps the file near 1,000 pages (4 MB).
      for (let i = 0; i < 600; i++) {
        const sent = await mailbox.send({ from: "t::lead", to: "t::a", content: `job ${i}` });
        const claimed = (await mailbox.claimNext("t::a"))!;
        expect(claimed.id).toBe(sent.id);
        await mailbox.complete(claimed.id, claimed.claimToken, { outcome: { content: "done" } });
      }
      expect(statSync(`${file}-wal`).size).toBeLessThan(8 * 1024 * 1024);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a schema newer than it knows, and keeps separate mailboxes apart by table prefix", async () => {
    const db = new Database(":memory:");
    const a = createSQLiteMailbox({ database: db, tablePrefix: "team_a" });
    const b = createSQLiteMailbox({ database: db, tablePrefix: "team_b" });
    await a.send({ from: "t::lead", to: "t::x", content: "for a" });
    expect(await b.inbox("t::x")).toEqual([]);
    db.prepare("UPDATE team_a_schema_version SET version = 99").run();
    expect(() => createSQLiteMailbox({ database: db, tablePrefix: "team_a" })).toThrow(
      expect.objectContaining({ code: "sqlite_mailbox_schema_too_new" }),
    );
  });

  it("rejects bad options with actionable messages", () => {
    expect(() => createSQLiteMailbox({} as never)).toThrow(/database must be a SQLite connection/);
    const database = new Database(":memory:");
    expect(() => createSQLiteMailbox({ database, tablePrefix: "bad name" })).toThrow(/tablePrefix/);
    expect(() => createSQLiteMailbox({ database, extra: 1 } as never)).toThrow(/unknown option "extra"/);
    expect(() => createSQLiteMailbox({ database, synchronous: "OFF" as never })).toThrow(/synchronous/);
  });

  it("messages survive closing and reopening the file (a process restart)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlite-mailbox-"));
    try {
      const file = join(dir, "team-mailbox.db");
      const first = new Database(file);
      const sent = await createSQLiteMailbox({ database: first }).send({
        from: "t::lead",
        to: "t::a",
        content: "keep me",
      });
      first.close();
      const second = new Database(file);
      expect(await createSQLiteMailbox({ database: second }).get(sent.id)).toMatchObject({
        content: "keep me",
        status: "pending",
      });
      second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
