// What is particular to the PostgreSQL mailbox beyond the conformance suite: lazy loading of pg, versioned migrations
// under an advisory lock, the schema option, SKIP LOCKED claims, transactional settles, LISTEN/NOTIFY channels and
// their reconnection, pool ownership, and option errors.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { InvalidOptionError } from "@agent-lattice/core";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  createPostgresMailbox,
  migratePostgresMailbox,
  type PostgresMailbox,
  PostgresMailboxError,
  postgresMailboxChannel,
  POSTGRES_MAILBOX_SCHEMA_VERSION as SCHEMA_VERSION,
} from "../src/index.js";
import { migrate } from "../src/migrations.js";
import { adminPool, closeAdmin, dropSchema, freshSchema, PG_URL, skipNote } from "./pg.js";

const LAZY = fileURLToPath(new URL("./fixtures/lazy-import.mjs", import.meta.url));

function node(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

describe("createPostgresMailbox() options (no server needed)", () => {
  it("rejects bad options with actionable messages, before connecting", async () => {
    await expect(createPostgresMailbox({} as never)).rejects.toThrow(/exactly one of `pool`/);
    await expect(
      createPostgresMailbox({ connectionString: "postgres://x", pool: {} as never } as never),
    ).rejects.toThrow(/exactly one of `pool`/);
    await expect(createPostgresMailbox({ pool: {} as never })).rejects.toThrow(/node-postgres Pool/);
    await expect(createPostgresMailbox({ connectionString: "" })).rejects.toThrow(/connectionString/);
    await expect(
      createPostgresMailbox({ connectionString: "postgres://x", schema: "Bad-Name" }),
    ).rejects.toThrow(/schema must be a lower-case SQL identifier/);
    await expect(createPostgresMailbox({ connectionString: "postgres://x", poolSize: 0 })).rejects.toThrow(
      /poolSize/,
    );
    await expect(
      createPostgresMailbox({ connectionString: "postgres://x", nope: 1 } as never),
    ).rejects.toThrow(/unknown option "nope"/);
    await expect(
      createPostgresMailbox({ connectionString: "postgres://x", reconnectTimeoutMs: -1 }),
    ).rejects.toThrow(/reconnectTimeoutMs must be a non-negative integer/);
    await expect(
      createPostgresMailbox({ connectionString: "postgres://x", onRetry: "log" as never }),
    ).rejects.toThrow(/onRetry must be a function/);
    await expect(createPostgresMailbox({ connectionString: "postgres://x" } as never)).rejects.toBeDefined();
  });

  it("importing the package loads no PostgreSQL client (checked in a fresh process)", async () => {
    const report = JSON.parse(await node([LAZY])) as { afterImport: string[] };
    expect(report.afterImport).toEqual([]);
  });
});

describe.skipIf(!PG_URL)(`createPostgresMailbox() on a real server${skipNote}`, () => {
  const schemas: string[] = [];
  const mailboxes: PostgresMailbox[] = [];
  const open = async (options: Partial<Parameters<typeof createPostgresMailbox>[0]> = {}) => {
    const schema = options.schema ?? freshSchema();
    schemas.push(schema);
    const mailbox = await createPostgresMailbox({
      connectionString: PG_URL,
      schema,
      poolSize: 4,
      ...options,
    });
    mailboxes.push(mailbox);
    return mailbox;
  };
  afterEach(async () => {
    for (const mailbox of mailboxes.splice(0)) await mailbox.close();
    for (const schema of schemas.splice(0)) await dropSchema(schema);
  });
  afterAll(closeAdmin);

  it("loads pg only when a mailbox is created from a connection string", async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const report = JSON.parse(await node([LAZY, PG_URL, schema])) as {
      afterImport: string[];
      afterCreate: number;
    };
    expect(report.afterImport).toEqual([]);
    expect(report.afterCreate).toBeGreaterThan(0);
  });

  it("migrates once under concurrent starters, records the version, and refuses a newer schema", async () => {
    const schema = freshSchema();
    const all = await Promise.all(Array.from({ length: 6 }, () => open({ schema, poolSize: 2 })));
    expect(new Set(all.map(mailbox => mailbox.storeId)).size).toBe(1);
    const versions = await adminPool().query(`SELECT version FROM "${schema}".schema_version`);
    expect(versions.rows).toEqual([{ version: SCHEMA_VERSION }]);
    const sent = await all[0]!.send({ from: "t::lead", to: "t::a", content: "one store" });
    expect(await all[5]!.get(sent.id)).toMatchObject({ content: "one store" });

    await adminPool().query(`UPDATE "${schema}".schema_version SET version = 99`);
    const error = await open({ schema }).catch(caught => caught);
    expect(error).toBeInstanceOf(PostgresMailboxError);
    expect(error).toMatchObject({ code: "postgres_mailbox_schema_too_new" });
  });

  it("migrate: false only checks; migratePostgresMailbox() prepares the schema from a deploy step", async () => {
    const schema = freshSchema();
    schemas.push(schema);
    await expect(open({ schema, migrate: false })).rejects.toMatchObject({
      code: "postgres_mailbox_schema_outdated",
    });
    expect(await migratePostgresMailbox({ connectionString: PG_URL, schema })).toEqual({
      schema,
      version: SCHEMA_VERSION,
    });
    const mailbox = await open({ schema, migrate: false });
    expect((await mailbox.send({ from: "t::lead", to: "t::a", content: "ok" })).status).toBe("pending");
  });

  it("keeps mailboxes on different schemas apart, notifications included", async () => {
    const a = await open();
    const b = await open();
    await a.send({ from: "t::lead", to: "t::x", content: "for a" });
    expect(await b.inbox("t::x")).toEqual([]);
    const watch = await a.watch(["t::x"]);
    try {
      await b.send({ from: "t::lead", to: "t::x", content: "for b" });
      expect(await watch.wait({ timeoutMs: 300 })).toBe(false);
      await a.send({ from: "t::lead", to: "t::x", content: "for a again" });
      expect(await watch.wait({ timeoutMs: 5_000 })).toBe(true);
    } finally {
      await watch.close();
    }
  });

  it("notifies the mailbox's own channel (postgresMailboxChannel) when a message arrives or settles", async () => {
    const mailbox = await open();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const heard: string[] = [];
    client.on("notification", message => heard.push(message.channel));
    try {
      const channel = postgresMailboxChannel(mailbox.schema, "t::a");
      expect(channel).toMatch(/^al_[0-9a-f]{24}$/);
      await client.query(`LISTEN ${channel}`);
      const sent = await mailbox.send({ from: "t::lead", to: "t::a", content: "q" });
      const claimed = (await mailbox.claimNext("t::a"))!;
      await mailbox.complete(sent.id, claimed.claimToken);
      await mailbox.send({ from: "t::lead", to: "t::other", content: "elsewhere" });
      await new Promise(resolve => setTimeout(resolve, 200));
      // Arrival and completion; claims and other mailboxes stay quiet.
      expect(heard).toEqual([channel, channel]);
    } finally {
      await client.end();
    }
  });

  it("claimNext() skips what other transactions hold locked (FOR UPDATE SKIP LOCKED) instead of waiting", async () => {
    const mailbox = await open();
    const oldest = await mailbox.send({ from: "t::lead", to: "t::a", content: "oldest" });
    const next = await mailbox.send({ from: "t::lead", to: "t::a", content: "next" });
    const client = await adminPool().connect();
    try {
      // Another transaction is claiming from this mailbox (it holds the mailbox's gate row): no wait, no claim.
      await client.query("BEGIN");
      await client.query(`SELECT pg_advisory_xact_lock("${mailbox.schema}".gate('t::a'))`);
      const started = Date.now();
      expect(await mailbox.claimNext("t::a")).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1_000);
      await client.query("ROLLBACK");
      // Another transaction holds the oldest message's row (e.g. cancelling it): the claim takes the next one.
      await client.query("BEGIN");
      await client.query(`SELECT 1 FROM "${mailbox.schema}".messages WHERE seq = $1 FOR UPDATE`, [
        oldest.id.split("_").at(-1),
      ]);
      expect((await mailbox.claimNext("t::a"))?.id).toBe(next.id);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });

  it("a settle and the reply it sends commit together: if the reply cannot be written, nothing changes", async () => {
    const mailbox = await open();
    const s = `"${mailbox.schema}"`;
    await adminPool().query(`
      CREATE FUNCTION ${s}.refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.content = 'boom' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_boom BEFORE INSERT ON ${s}.messages FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_boom();
    `);
    const request = await mailbox.send({ from: "t::lead", to: "t::a", content: "q", kind: "delegation" });
    const claimed = (await mailbox.claimNext("t::a"))!;
    const reply = (content: string) => ({
      from: "t::a",
      to: "t::lead",
      content,
      kind: "reply" as const,
      parentMessageId: request.id,
    });
    await expect(
      mailbox.complete(request.id, claimed.claimToken, { send: [reply("fine"), reply("boom")] }),
    ).rejects.toThrow(/refused/);
    expect(await mailbox.get(request.id)).toMatchObject({
      status: "processing",
      claimedBy: claimed.claimedBy,
    });
    expect(await mailbox.inbox("t::lead", { status: "all" })).toEqual([]);
    const settled = await mailbox.complete(request.id, claimed.claimToken, { send: [reply("fine")] });
    expect(settled?.sent).toHaveLength(1);
  });

  it("rejects text PostgreSQL cannot store, before storing anything", async () => {
    const mailbox = await open();
    await expect(mailbox.send({ from: "t::lead", to: "t::a", content: "a\u0000b" })).rejects.toThrow(
      InvalidOptionError,
    );
    expect(await mailbox.inbox("t::a", { status: "all" })).toEqual([]);
    await expect(
      mailbox.send({ from: "t::lead", to: "t::a", content: "x", metadata: { nul: "a\u0000b" } }),
    ).rejects.toThrow(/metadata.*NUL/);
    expect(await mailbox.inbox("t::a", { status: "all" })).toEqual([]);
    // Everything else round-trips exactly, e.g. metadata key order and unicode.
    const metadata = { z: 1, a: ["é", "😀", { nested: true }] };
    const sent = await mailbox.send({ from: "t::lead", to: "t::a", content: "ünïcode ✓", metadata });
    const read = (await mailbox.get(sent.id))!;
    expect(JSON.stringify(read.metadata)).toBe(JSON.stringify(metadata));
    expect(read.content).toBe("ünïcode ✓");
  });

  it("notifies from a transaction of its own after the change committed, never from inside the change", async () => {
    // A NOTIFY inside the sending / settling transaction holds PostgreSQL's database-wide notify lock through that
    // transaction's WAL flush, so concurrent durable commits that notify would go one fsync at a time. The change
    // procedures COMMIT the change first and NOTIFY from the transaction that follows, inside the same CALL.
    const mailbox = await open();
    const s = `"${mailbox.schema}"`;
    const channel = postgresMailboxChannel(mailbox.schema, "t::a");
    const listener = new pg.Client({ connectionString: PG_URL });
    await listener.connect();
    const heard: string[] = [];
    listener.on("notification", message => heard.push(message.channel));
    const settle = () => new Promise(resolve => setTimeout(resolve, 150));
    try {
      await listener.query(`LISTEN ${channel}`);
      const client = await adminPool().connect();
      try {
        // Inside a caller's transaction the procedure cannot commit, so it refuses: the change never shares a
        // transaction with its NOTIFY, and nothing of it is kept.
        await client.query("BEGIN");
        await expect(
          client.query(`CALL ${s}.send_call($1::json)`, [
            JSON.stringify({ from: "t::lead", to: "t::a", content: "inside" }),
          ]),
        ).rejects.toThrow(/invalid transaction termination/);
        await client.query("ROLLBACK");
        await settle();
        expect(heard).toEqual([]);
        expect(await mailbox.inbox("t::a")).toEqual([]);
        const called = await client.query<{ p_rows: Array<{ content: string }> }>(
          `CALL ${s}.send_call($1::json)`,
          [JSON.stringify({ from: "t::lead", to: "t::a", content: "direct" })],
        );
        expect(called.rows[0]!.p_rows.map(row => row.content)).toEqual(["direct"]);
        await settle();
        expect(heard).toEqual([channel]);
      } finally {
        client.release();
      }
      await mailbox.send({ from: "t::lead", to: "t::a", content: "through the mailbox" });
      const claimed = (await mailbox.claimNext("t::a"))!;
      await settle();
      expect(heard).toEqual([channel, channel]); // a claim notifies no one
      await mailbox.complete(claimed.id, claimed.claimToken);
      await settle();
      expect(heard).toEqual([channel, channel, channel]);
    } finally {
      await listener.end();
    }
    const triggers = await adminPool().query(
      "SELECT tgname FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal",
      [`${s}.messages`],
    );
    expect(triggers.rows).toEqual([]);
  });

  it("upgrades a version-1 schema in place: a message claimed before the upgrade is settled after it", async () => {
    // A fleet upgraded while it works: a process of the previous release claimed a message on a version-1 schema;
    // this release migrates the schema to the current version, honours that live claim, settles it with the old
    // claim's token (its reply in the same transaction) and keeps the message's whole transition log.
    const schema = freshSchema();
    schemas.push(schema);
    const s = `"${schema}"`;
    await migrate(adminPool(), schema, true, 1);
    const versionOf = async () =>
      (await adminPool().query(`SELECT version FROM ${s}.schema_version`)).rows.map(row => row.version);
    expect(await versionOf()).toEqual([1]);
    // What a version-1 process runs: its send() and claim_next() functions.
    const sendV1 = async (content: string) =>
      (
        await adminPool().query(`SELECT seq, thread_id FROM ${s}.send($1::json)`, [
          JSON.stringify({ from: "t::lead", to: "t::a", content, kind: "delegation" }),
        ])
      ).rows[0] as { seq: string; thread_id: string };
    const first = await sendV1("before the upgrade");
    const second = await sendV1("queued behind it");
    const claimedV1 = await adminPool().query(
      `SELECT seq FROM ${s}.claim_next('t::a', 'old-worker', 'tok-v1', 60000)`,
    );
    expect(claimedV1.rows).toEqual([{ seq: first.seq }]);

    const mailbox = await open({ schema });
    expect(await versionOf()).toEqual([SCHEMA_VERSION]);
    expect(SCHEMA_VERSION).toBeGreaterThan(1);
    const firstId = `msg_${mailbox.storeId}_${first.seq}`;
    const secondId = `msg_${mailbox.storeId}_${second.seq}`;
    expect(await mailbox.get(firstId)).toMatchObject({
      status: "processing",
      claimedBy: "old-worker",
      attempts: 1,
    });
    expect(await mailbox.claimNext("t::a")).toBeUndefined(); // the old claim's lease is live: the mailbox is busy
    expect(await mailbox.complete(firstId, "not-the-token")).toBeUndefined();
    const settled = await mailbox.complete(firstId, "tok-v1", {
      outcome: { content: "done" },
      send: [{ from: "t::a", to: "t::lead", content: "report", kind: "reply", parentMessageId: firstId }],
    });
    expect(settled!.message).toMatchObject({
      id: firstId,
      status: "completed",
      outcome: { content: "done" },
    });
    expect(settled!.sent).toHaveLength(1);
    expect(settled!.sent[0]).toMatchObject({ kind: "reply", status: "pending", threadId: first.thread_id });
    expect((await mailbox.transitions(firstId)).map(entry => [entry.from, entry.to, entry.owner])).toEqual([
      [null, "pending", undefined],
      ["pending", "processing", "old-worker"],
      ["processing", "completed", "old-worker"],
    ]);
    const next = (await mailbox.claimNext("t::a", { owner: "new-worker" }))!;
    expect(next).toMatchObject({ id: secondId, status: "processing", claimedBy: "new-worker" });
    expect(await mailbox.release(secondId, next.claimToken)).toMatchObject({ status: "pending" });
    expect((await mailbox.inbox("t::lead")).map(message => message.content)).toEqual(["report"]);
    // Migrating again changes nothing.
    await migratePostgresMailbox({ connectionString: PG_URL, schema });
    expect(await versionOf()).toEqual([SCHEMA_VERSION]);
  });

  it("quotes, backslashes and dollar signs round-trip through sends, settles and cancels (literals, not SQL)", async () => {
    const mailbox = await open();
    const tricky = String.raw`it's \ a "test" $$; DROP TABLE x; -- E'\'' \x00 ) '`;
    const sent = await mailbox.send({
      from: "t::lead",
      to: "t::a",
      content: tricky,
      metadata: { tricky, nested: { back: "\\", quote: "'" } },
      threadId: `th_${tricky}`,
    });
    const read = (await mailbox.get(sent.id))!;
    expect(read.content).toBe(tricky);
    expect(read.metadata).toEqual({ tricky, nested: { back: "\\", quote: "'" } });
    expect(read.threadId).toBe(`th_${tricky}`);
    const claimed = (await mailbox.claimNext("t::a"))!;
    expect(await mailbox.complete(sent.id, `${claimed.claimToken}'; --`)).toBeUndefined();
    const settled = await mailbox.complete(sent.id, claimed.claimToken, {
      outcome: { content: tricky },
      send: [{ from: "t::a", to: "t::lead", content: tricky, kind: "reply", parentMessageId: sent.id }],
    });
    expect(settled?.message.outcome).toEqual({ content: tricky });
    expect(settled?.sent[0]?.content).toBe(tricky);
    const other = await mailbox.send({ from: "t::lead", to: "t::b", content: "x" });
    expect(await mailbox.cancel(other.id, { outcome: { content: tricky } })).toMatchObject({
      status: "cancelled",
      outcome: { content: tricky },
    });
  });

  it("keeps working on a connection whose prepared statements were discarded (DISCARD ALL)", async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    try {
      const schema = freshSchema();
      schemas.push(schema);
      const mailbox = await createPostgresMailbox({ pool, schema });
      await mailbox.send({ from: "t::lead", to: "t::a", content: "first" }); // prepares on the only connection
      await pool.query("DISCARD ALL");
      const second = await mailbox.send({ from: "t::lead", to: "t::a", content: "second" });
      expect(second.content).toBe("second");
      expect((await mailbox.inbox("t::a")).map(message => message.content)).toEqual(["first", "second"]);
      await mailbox.close();
    } finally {
      await pool.end();
    }
  });

  it("with your own pool: close() returns the LISTEN connection and leaves the pool open", async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 3 });
    try {
      const schema = freshSchema();
      schemas.push(schema);
      const mailbox = await createPostgresMailbox({ pool, schema });
      const watch = await mailbox.watch(["t::a"]);
      expect(pool.totalCount - pool.idleCount).toBe(1); // the listener holds one connection
      await watch.close();
      await new Promise(resolve => setTimeout(resolve, 20));
      expect(pool.totalCount - pool.idleCount).toBe(0); // handed back once nobody watches
      await mailbox.watch(["t::a"]);
      await mailbox.close();
      expect(pool.totalCount - pool.idleCount).toBe(0);
      expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it("watch() survives its connection being killed: waiters are woken, and it listens again", async () => {
    const mailbox = await open();
    const watch = await mailbox.watch(["t::a"]);
    try {
      const listeners = await adminPool().query(
        "SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN al_%' AND pid <> pg_backend_pid()",
      );
      expect(listeners.rows.length).toBeGreaterThan(0);
      const woken = watch.wait({ timeoutMs: 10_000 });
      await adminPool().query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [
        listeners.rows.map(row => row.pid),
      ]);
      expect(await woken).toBe(true); // told to re-check: a notification may have been missed
      // Once it listens again, a new message wakes it as before.
      const deadline = Date.now() + 10_000;
      let heard = false;
      while (!heard && Date.now() < deadline) {
        await watch.wait({ timeoutMs: 50 });
        await mailbox.send({ from: "t::lead", to: "t::a", content: "after reconnect" });
        heard = await watch.wait({ timeoutMs: 500 });
      }
      expect(heard).toBe(true);
    } finally {
      await watch.close();
    }
  });

  it("uses the indexes for the hot queries", async () => {
    const mailbox = await open();
    for (let i = 0; i < 50; i++) await mailbox.send({ from: "t::lead", to: `t::m${i % 5}`, content: `${i}` });
    const client = await adminPool().connect();
    try {
      await client.query("SET enable_seqscan = off");
      const plan = await client.query(
        `EXPLAIN SELECT seq FROM "${mailbox.schema}".messages WHERE to_mailbox = 't::m1' AND status = 'pending' ORDER BY seq LIMIT 1`,
      );
      expect(plan.rows.map(row => row["QUERY PLAN"]).join("\n")).toContain("messages_by_mailbox_status");
    } finally {
      client.release();
    }
  });
});
