// The mailbox's own handling of dropped connections, call by call (the team runtime's is in
// dropped-connections.test.ts): what is retried and how (classification, bounded jittered backoff), how a retry
// after a lost answer finds the earlier commit instead of applying it twice, and what fails fast with a typed error.
import { createBareAgent } from "@agent-lattice/core";
import { runTeamWorker, teamMember } from "@agent-lattice/team";
import { createScriptedModelClient } from "@agent-lattice/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { faultOf } from "../src/faults.js";
import {
  createPostgresMailbox,
  type PostgresMailbox,
  PostgresMailboxError,
  type PostgresMailboxOptions,
  type PostgresMailboxRetry,
} from "../src/index.js";
import { RETRY_MAX_DELAY_MS, retryDelayMs } from "../src/reconnect.js";
import { adminPool, closeAdmin, dropSchema, freshSchema, PG_URL, skipNote } from "./pg.js";
import { listenQuery, PgFaultProxy, statementNamed } from "./pg-fault-proxy.js";

describe("what is retried, and how long between tries (no server needed)", () => {
  it("classifies connection failures as transient and configuration failures as permanent", () => {
    const pgError = (code: string) => Object.assign(new Error(code), { code });
    for (const code of ["57P01", "57P02", "57P03", "08006", "08001", "53300", "ECONNRESET", "ECONNREFUSED"]) {
      expect(faultOf(pgError(code)), code).toBe("transient");
    }
    expect(faultOf(new Error("Connection terminated unexpectedly"))).toBe("transient");
    expect(faultOf(new AggregateError([pgError("ECONNREFUSED"), pgError("ECONNREFUSED")]))).toBe("transient");
    for (const code of ["28P01", "28000", "3D000", "3F000", "42P01", "42883", "42501"]) {
      expect(faultOf(pgError(code)), code).toBe("permanent");
    }
    // Errors of the statement itself are neither: thrown as they are, never retried.
    for (const code of ["23505", "22P02", "40P01", "ENOTFOUND"])
      expect(faultOf(pgError(code)), code).toBeUndefined();
    expect(faultOf(new PostgresMailboxError("postgres_mailbox_schema_outdated", "old"))).toBeUndefined();
  });

  it("backs off at once, then 100 ms doubling to a 5 s cap, each delay jittered within its upper half", () => {
    expect(retryDelayMs(1, () => 0.5)).toBe(0);
    expect([2, 3, 4, 5].map(attempt => retryDelayMs(attempt, () => 1))).toEqual([100, 200, 400, 800]);
    expect([2, 3, 4, 5].map(attempt => retryDelayMs(attempt, () => 0))).toEqual([50, 100, 200, 400]);
    expect(retryDelayMs(40, () => 1)).toBe(RETRY_MAX_DELAY_MS);
    expect(retryDelayMs(40, () => 0)).toBe(RETRY_MAX_DELAY_MS / 2);
  });
});

describe.skipIf(!PG_URL)(`a mailbox whose connection drops${skipNote}`, () => {
  const schemas: string[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema).catch(() => {});
    await closeAdmin();
  });

  /** A mailbox reached through a fault proxy (its connections are named "app"), its retries recorded. */
  async function throughProxy(options: Partial<PostgresMailboxOptions> = {}) {
    const proxy = await PgFaultProxy.start(PG_URL);
    const schema = freshSchema("rc");
    schemas.push(schema);
    const retries: PostgresMailboxRetry[] = [];
    const mailbox = await createPostgresMailbox({
      connectionString: proxy.url(PG_URL, "app"),
      schema,
      poolSize: 3,
      onRetry: retry => retries.push(retry),
      ...options,
    });
    cleanups.push(async () => {
      await mailbox.close();
      await proxy.close();
    });
    return { proxy, mailbox, retries, schema };
  }

  const history = async (schema: string, seq: string) =>
    (await adminPool().query(`SELECT history FROM "${schema}".messages WHERE seq = $1`, [seq])).rows[0]
      .history as Array<[string | null, string, number, string | null]>;
  const seqOf = (id: string) => id.split("_").at(-1)!;
  /** Waits for `test` to hold, re-checking on each turn of the event loop (bounded by the test's timeout). */
  const until = async (test: () => boolean) => {
    while (!test()) await new Promise(resolve => setImmediate(resolve));
  };
  const count = async (schema: string) =>
    (await adminPool().query(`SELECT count(*)::int AS n FROM "${schema}".messages`)).rows[0].n as number;

  it("complete() whose commit answer is lost returns the settled message and its reply; nothing is written twice", async () => {
    const { proxy, mailbox, retries, schema } = await throughProxy();
    const request = await mailbox.send({ from: "t::lead", to: "t::a", kind: "delegation", content: "do it" });
    const claimed = (await mailbox.claimNext("t::a"))!;
    const fault = proxy.arm({ app: "app", match: statementNamed("settle"), action: "terminate-after" });
    const settled = await mailbox.complete(claimed.id, claimed.claimToken, {
      outcome: { content: "done" },
      send: [{ from: "t::a", to: "t::lead", kind: "reply", content: "done", parentMessageId: request.id }],
    });
    await fault.fired;
    expect(retries.map(retry => retry.operation)).toEqual(["complete"]);
    expect(settled?.message).toMatchObject({
      id: request.id,
      status: "completed",
      outcome: { content: "done" },
    });
    expect(settled?.sent).toHaveLength(1);
    expect(settled?.sent[0]).toMatchObject({ kind: "reply", content: "done", parentMessageId: request.id });
    expect(await count(schema)).toBe(2);
    expect((await history(schema, seqOf(request.id))).filter(([, to]) => to === "completed")).toHaveLength(1);
    // The claim is spent: settling again is refused as before.
    expect(await mailbox.complete(claimed.id, claimed.claimToken)).toBeUndefined();
  });

  it("release() and cancel() whose answers are lost return the message as they left it", async () => {
    const { proxy, mailbox, schema } = await throughProxy();
    const first = await mailbox.send({ from: "t::lead", to: "t::a", content: "one" });
    let claimed = (await mailbox.claimNext("t::a"))!;
    let fault = proxy.arm({ app: "app", match: statementNamed("settle"), action: "terminate-after" });
    expect(await mailbox.release(claimed.id, claimed.claimToken)).toMatchObject({
      id: first.id,
      status: "pending",
    });
    await fault.fired;

    claimed = (await mailbox.claimNext("t::a"))!;
    fault = proxy.arm({ app: "app", match: statementNamed("cancel"), action: "terminate-after" });
    expect(await mailbox.cancel(claimed.id, { claimToken: claimed.claimToken })).toMatchObject({
      status: "cancelled",
    });
    await fault.fired;

    const second = await mailbox.send({ from: "t::lead", to: "t::a", content: "two" });
    fault = proxy.arm({ app: "app", match: statementNamed("cancel"), action: "terminate-after" });
    expect(await mailbox.cancel(second.id)).toMatchObject({ id: second.id, status: "cancelled" });
    await fault.fired;
    for (const message of [first, second]) {
      expect((await history(schema, seqOf(message.id))).filter(([, to]) => to === "cancelled")).toHaveLength(
        1,
      );
    }
  });

  it("claim() whose answer is lost is found by its token: the same claim, claimed once", async () => {
    const { proxy, mailbox, schema } = await throughProxy();
    const message = await mailbox.send({ from: "t::lead", to: "t::a", content: "one" });
    const fault = proxy.arm({ app: "app", match: statementNamed("claim"), action: "terminate-after" });
    const claimed = await mailbox.claim(message.id);
    await fault.fired;
    expect(claimed).toMatchObject({ id: message.id, status: "processing", attempts: 1 });
    const log = await history(schema, seqOf(message.id));
    expect(log.filter(([, to]) => to === "processing").map(entry => entry[3])).toEqual([claimed!.claimToken]);
    expect(await mailbox.renew(message.id, claimed!.claimToken)).toBe(true);
  });

  it("send() of a new conversation whose answer is lost stores it once; a reply's lost send throws outcome_unknown", async () => {
    const { proxy, mailbox, schema, retries } = await throughProxy();
    let fault = proxy.arm({ app: "app", match: statementNamed("send"), action: "terminate-after" });
    const root = await mailbox.send({ from: "t::lead", to: "t::a", content: "hello" });
    await fault.fired;
    expect(await count(schema)).toBe(1);
    expect(await mailbox.thread(root.threadId)).toEqual([root]);

    // A reply has no identity of its own to find it by: the caller is told, with a typed error, that it may exist.
    fault = proxy.arm({ app: "app", match: statementNamed("send"), action: "terminate-after" });
    const error = await mailbox
      .send({ from: "t::a", to: "t::lead", kind: "reply", content: "hi", parentMessageId: root.id })
      .catch(caught => caught);
    await fault.fired;
    expect(error).toBeInstanceOf(PostgresMailboxError);
    expect(error).toMatchObject({ code: "postgres_mailbox_outcome_unknown", transient: false });
    expect(await count(schema)).toBe(2);

    // A reply that never reached the server (no connection could be opened) is simply sent again.
    await proxy.refuse();
    const retried = retries.length;
    const later = mailbox.send({
      from: "t::a",
      to: "t::lead",
      kind: "followup",
      content: "later",
      parentMessageId: root.id,
    });
    await until(() => retries.length > retried);
    await proxy.accept();
    await later;
    expect((await mailbox.thread(root.threadId)).map(message => message.content)).toEqual([
      "hello",
      "hi",
      "later",
    ]);
  });

  it("watch() whose LISTEN is terminated resolves anyway, listens again and wakes its waiter to re-check", async () => {
    const { proxy, mailbox, retries } = await throughProxy();
    const fault = proxy.arm({ app: "app", match: listenQuery, action: "terminate-before" });
    const watch = await mailbox.watch(["t::a"]);
    await fault.fired;
    // Told at once to re-check (a notification may have been missed) …
    expect(await watch.wait()).toBe(true);
    // … and once more when it listens again on a new connection: what changed while nobody listened.
    expect(await watch.wait()).toBe(true);
    expect(proxy.connections("app").filter(c => c.listening && c.open)).toHaveLength(1);
    expect(retries.map(retry => retry.operation)).toContain("listen");
    // From then on NOTIFY wakes it as before.
    const heard = watch.wait();
    await mailbox.send({ from: "t::lead", to: "t::a", content: "ping" });
    expect(await heard).toBe(true);
    await watch.close();
  });

  it("a database that stays unreachable: postgres_mailbox_unavailable (transient) after reconnectTimeoutMs", async () => {
    const { proxy, mailbox, retries } = await throughProxy({ reconnectTimeoutMs: 300 });
    await proxy.refuse();
    const error = await mailbox.inbox("t::a").catch(caught => caught);
    expect(error).toBeInstanceOf(PostgresMailboxError);
    expect(error).toMatchObject({ code: "postgres_mailbox_unavailable", transient: true });
    expect(error.message).toMatch(/reconnectTimeoutMs/);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every(retry => retry.operation === "inbox")).toBe(true);
  });

  it("reconnectTimeoutMs: 0 does not retry; close() ends a call that waits to reconnect", async () => {
    const quick = await throughProxy({ reconnectTimeoutMs: 0 });
    await quick.proxy.refuse();
    await expect(quick.mailbox.get("msg_x_1")).resolves.toBeUndefined(); // not this store's id: no query at all
    const error = await quick.mailbox.thread("th_1").catch(caught => caught);
    expect(error).toMatchObject({ code: "postgres_mailbox_unavailable" });
    expect(quick.retries).toEqual([]);

    const patient = await throughProxy({ reconnectTimeoutMs: 600_000 });
    await patient.proxy.refuse();
    const waiting = patient.mailbox.inbox("t::a").catch(caught => caught);
    await until(() => patient.retries.length > 0);
    await patient.mailbox.close();
    expect(await waiting).toMatchObject({ code: "postgres_mailbox_closed" });
  });
});

describe.skipIf(!PG_URL)(`permanent failures fail fast with a typed error${skipNote}`, () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema).catch(() => {});
    await adminPool()
      .query("DROP ROLE IF EXISTS al_limited")
      .catch(() => {});
    await closeAdmin();
  });

  function urlWith(change: (url: URL) => void): string {
    const url = new URL(PG_URL);
    change(url);
    return url.toString();
  }

  it("a login the server refuses: postgres_mailbox_auth_failed at creation, not retried", async () => {
    const retries: PostgresMailboxRetry[] = [];
    const error = await createPostgresMailbox({
      connectionString: urlWith(url => {
        url.username = "no_such_role";
      }),
      onRetry: retry => retries.push(retry),
    }).catch(caught => caught);
    expect(error).toBeInstanceOf(PostgresMailboxError);
    expect(error).toMatchObject({
      code: "postgres_mailbox_auth_failed",
      transient: false,
      causeCode: "28000",
    });
    expect(error.message).toMatch(/user and password/);
    expect(retries).toEqual([]);
  });

  it("a database that does not exist: postgres_mailbox_database_missing, not retried", async () => {
    const error = await createPostgresMailbox({
      connectionString: urlWith(url => {
        url.pathname = "/no_such_database";
      }),
    }).catch(caught => caught);
    expect(error).toMatchObject({ code: "postgres_mailbox_database_missing", causeCode: "3D000" });
  });

  it("a role without rights on the schema: postgres_mailbox_permission_denied", async () => {
    const schema = freshSchema("perm");
    schemas.push(schema);
    await (await createPostgresMailbox({ connectionString: PG_URL, schema })).close();
    await adminPool().query("DROP ROLE IF EXISTS al_limited");
    await adminPool().query("CREATE ROLE al_limited LOGIN");
    const error = await createPostgresMailbox({
      connectionString: urlWith(url => {
        url.username = "al_limited";
      }),
      schema,
      migrate: false,
    }).catch(caught => caught);
    expect(error).toMatchObject({ code: "postgres_mailbox_permission_denied", causeCode: "42501" });
  });

  it("a schema dropped under a running mailbox: calls and runTeamWorker() fail fast with postgres_mailbox_schema_missing", async () => {
    const schema = freshSchema("gone");
    schemas.push(schema);
    const retries: PostgresMailboxRetry[] = [];
    const mailbox: PostgresMailbox = await createPostgresMailbox({
      connectionString: PG_URL,
      schema,
      onRetry: retry => retries.push(retry),
    });
    try {
      await dropSchema(schema);
      const error = await mailbox.claimNext("t::a").catch(caught => caught);
      expect(error).toBeInstanceOf(PostgresMailboxError);
      expect(error).toMatchObject({ code: "postgres_mailbox_schema_missing", transient: false });
      expect(error.message).toMatch(/migrate: true|migratePostgresMailbox/);

      // The worker does not spin on it: it stops and rejects with the same typed error.
      const agent = createBareAgent({ model: "a", modelClient: createScriptedModelClient() });
      const worker = runTeamWorker({
        name: "t",
        members: [teamMember({ name: "a", role: "executor", agent })],
        mailbox,
        onError: error => retries.push({ operation: "worker", attempt: 0, delayMs: 0, error }),
      });
      await expect(worker).rejects.toMatchObject({ code: "postgres_mailbox_schema_missing" });
      expect(retries).toEqual([]);
    } finally {
      await mailbox.close();
    }
  });
});
