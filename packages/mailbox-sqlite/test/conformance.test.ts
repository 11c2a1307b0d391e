// T12: the SQLite mailbox passes the TeamMailbox conformance suite — on a file (WAL, two connections, four
// claimer processes at once) and in memory.
import { mkdtempSync, rmSync } from "node:fs";
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
    expect(db.prepare("SELECT version FROM team_mailbox_schema_version").all()).toEqual([{ version: 1 }]);
    // Lookups by id use the table's key: the id embeds the row number.
    const idPlan = db
      .prepare("EXPLAIN QUERY PLAN SELECT * FROM team_mailbox_messages WHERE seq = ?")
      .all(1) as Array<{ detail: string }>;
    expect(idPlan[0]!.detail).toContain("INTEGER PRIMARY KEY");
    const indexes = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as Array<{
        name: string;
      }>
    ).map(row => row.name);
    expect(indexes).toEqual(["team_mailbox_messages_by_mailbox_status"]);
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT * FROM team_mailbox_messages WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT 1",
      )
      .all("x") as Array<{ detail: string }>;
    expect(plan.map(step => step.detail).join(" ")).toContain("team_mailbox_messages_by_mailbox_status");
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
