// A lead (runner execution "remote") and a worker (runTeamWorker) in two processes survive their PostgreSQL
// connection being dropped at each point of a handoff's life — LISTEN, claim, renew, settle, the lead's wait — with
// the work done once, settled once, and neither process exiting. The drop is a real pg_terminate_backend() at an
// exact protocol point (see pg-fault-proxy.ts): before a statement reaches the server, or after the server
// committed it and before the answer reaches the client. Each test also checks that the process's mailbox retried
// the call itself (its onRetry log). Before this change 8 of the 11 scenarios failed outright (a process exited, the
// run failed, the member ran twice, a committed settle was reported lost, a handoff was stored twice); the other
// three (a claim or the lead's read dropped before it ran, the lead's LISTEN dropped while it waited) recovered
// through the runtime's polling, and fail on the retry log.
import { fileURLToPath } from "node:url";
import { startMockAnthropicServer, textTurn, toolUse, turn } from "@agent-lattice/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresMailbox } from "../src/index.js";
import { startTemporaryPostgres, type TemporaryPostgres } from "../src/test-server.js";
import { adminPool, closeAdmin, dropSchema, freshSchema, PG_URL, skipNote } from "./pg.js";
import { type ArmedRule, listenQuery, PgFaultProxy, statementNamed } from "./pg-fault-proxy.js";
import { lastUserText, type Spawned, startNode } from "./processes.js";

const SCRIPT = fileURLToPath(new URL("./fixtures/team-process.mjs", import.meta.url));
/** Long enough that no lease expires while a fault is handled, whatever the load: one worker, nobody reclaims. */
const LEASE_MS = 3_000;

const start = (args: string[]) => startNode(SCRIPT, args);

const lastLine = (text: string) => text.trim().split("\n").at(-1)!;

interface Scenario {
  /** Arms the scenario's faults before the processes start. */
  arm(proxy: PgFaultProxy): ArmedRule[];
  /** The member's model call waits for this: faults that must happen while the member works. */
  whileMemberWorks?(proxy: PgFaultProxy, armed: ArmedRule[]): Promise<void>;
  /** Resolves once the lead's handoff is stored (default: the lead's send was answered). */
  stored?(armed: ArmedRule[]): Promise<unknown>;
}

type Logged = [string | null, string, number, string | null, string | null];

interface Outcome {
  lead: Spawned;
  worker: Spawned;
}

/**
 * Runs one handoff from a lead process to a worker process through the proxy with the scenario's faults armed, and
 * checks what must hold whatever was dropped: the lead's run succeeds with the member's report; every fault fired;
 * the worker is still running and has completed the item exactly once; the delegation was claimed once and has one
 * terminal transition, and exactly one reply exists, acknowledged by the lead.
 */
async function survives(scenario: Scenario): Promise<Outcome> {
  const schema = freshSchema("drop");
  // Migrated here, directly: the processes only find it current.
  await (await createPostgresMailbox({ connectionString: PG_URL, schema })).close();
  const proxy = await PgFaultProxy.start(PG_URL);
  const armed = scenario.arm(proxy);
  const stored = scenario.stored
    ? scenario.stored(armed)
    : proxy.arm({ app: "lead", match: statementNamed("send"), action: "observe" }).fired;
  const fired = armed.map(rule => {
    const hit = { fired: false };
    void rule.fired.then(() => {
      hit.fired = true;
    });
    return hit;
  });
  let memberCalls = 0;
  const server = await startMockAnthropicServer({
    respond: async request => {
      if (request.body.model === "lead") {
        const last = lastUserText(request);
        if (!last.includes("[team_report]"))
          return turn([toolUse("alpha", { mode: "handoff", task: "task-0" })]);
        return textTurn(`reported: ${last.includes("alpha finished task-0")}`);
      }
      memberCalls += 1;
      await scenario.whileMemberWorks?.(proxy, armed);
      return textTurn("alpha finished task-0");
    },
  });
  const processes: Spawned[] = [];
  try {
    const lead = start(["lead", proxy.url(PG_URL, "lead"), schema, server.url, String(LEASE_MS)]);
    processes.push(lead);
    const leadGone = lead.exited.then(code => {
      throw new Error(`the lead exited (${code}) before its handoff was stored\n${lead.stderr}`);
    });
    await Promise.race([stored, leadGone]);
    leadGone.catch(() => {});
    const worker = start(["worker", proxy.url(PG_URL, "worker"), schema, server.url, String(LEASE_MS)]);
    processes.push(worker);

    const first = await Promise.race([
      lead.exited.then(code => ({ process: "lead", code })),
      worker.exited.then(code => ({ process: "worker", code })),
    ]);
    const logs = `lead:\n${lead.stderr}\nworker:\n${worker.stderr}`;
    expect(first, logs).toEqual({ process: "lead", code: 0 });
    expect(JSON.parse(lastLine(lead.stdout)), logs).toEqual({ subtype: "success", result: "reported: true" });
    expect(
      fired.map(hit => hit.fired),
      "every fault happened",
    ).toEqual(armed.map(() => true));
    expect(memberCalls).toBe(1);

    expect(worker.child.exitCode, logs).toBeNull();
    worker.child.kill("SIGTERM");
    expect(await worker.exited, logs).toBe(0);
    expect(JSON.parse(lastLine(worker.stdout))).toMatchObject({
      processed: 1,
      completed: 1,
      failed: 0,
      lost: 0,
      released: 0,
    });

    const rows = (
      await adminPool().query(
        `SELECT seq, kind, status, attempts, parent_message_id, history FROM "${schema}".messages ORDER BY seq`,
      )
    ).rows as Array<{
      seq: string;
      kind: string;
      status: string;
      attempts: number;
      parent_message_id: string | null;
      history: Logged[];
    }>;
    const [delegation, ...others] = rows;
    expect(delegation).toMatchObject({ kind: "delegation", status: "completed", attempts: 1 });
    expect(others.map(row => [row.kind, row.status])).toEqual([["reply", "completed"]]);
    expect(others[0]!.parent_message_id).toMatch(new RegExp(`_${delegation!.seq}$`));
    for (const row of rows) {
      expect(
        row.history.filter(([, to]) => ["completed", "failed", "cancelled"].includes(to)),
        `message ${row.seq}: one terminal transition`,
      ).toHaveLength(1);
    }
    return { lead, worker };
  } finally {
    for (const spawned of processes) if (spawned.child.exitCode === null) spawned.child.kill("SIGKILL");
    await server.close();
    await proxy.close();
    await dropSchema(schema).catch(() => {});
  }
}

/** The operations a process's mailbox logged as retried (its onRetry hook). */
function retried(spawned: Spawned): string[] {
  return spawned.stderr
    .split("\n")
    .filter(line => line.startsWith('{"retry"'))
    .map(line => JSON.parse(line).retry as string);
}

describe.skipIf(!PG_URL)(`a lead and a worker survive a dropped PostgreSQL connection${skipNote}`, () => {
  afterAll(closeAdmin);

  it("worker, LISTEN: the first LISTEN of runTeamWorker() is terminated before it runs", async () => {
    const { worker } = await survives({
      arm: proxy => [proxy.arm({ app: "worker", match: listenQuery, action: "terminate-before" })],
    });
    expect(retried(worker)).toContain("listen");
  });

  it("worker, claim: claimNext() is terminated before it reaches the server", async () => {
    const { worker } = await survives({
      arm: proxy => [
        proxy.arm({
          app: "worker",
          match: statementNamed("claim_next", "::alpha"),
          action: "terminate-before",
        }),
      ],
    });
    expect(retried(worker)).toContain("claimNext");
  });

  it("worker, claim: claimNext() committed, then its answer is lost (the claim is found by its token, not re-run)", async () => {
    const { worker } = await survives({
      arm: proxy => [
        proxy.arm({
          app: "worker",
          match: statementNamed("claim_next"),
          action: "terminate-after",
          onlyWithRows: true,
        }),
      ],
    });
    expect(retried(worker)).toContain("claimNext");
  });

  it("worker, renew: a lease renewal is terminated before it runs, another after it committed", async () => {
    const { worker } = await survives({
      arm: proxy => [
        proxy.arm({ app: "worker", match: statementNamed("renew"), action: "terminate-before" }),
        proxy.arm({ app: "worker", match: statementNamed("renew"), action: "terminate-after" }),
      ],
      // The member works until both renewals were dropped.
      whileMemberWorks: async (_proxy, armed) => {
        await Promise.all(armed.map(rule => rule.fired));
      },
    });
    expect(retried(worker).filter(operation => operation === "renew")).toHaveLength(2);
  });

  it("worker, settle: complete() with the reply is terminated before it reaches the server", async () => {
    const { worker } = await survives({
      arm: proxy => [
        proxy.arm({ app: "worker", match: statementNamed("settle"), action: "terminate-before" }),
      ],
    });
    expect(retried(worker)).toContain("complete");
  });

  it("worker, settle: complete() committed, then its answer is lost (settled once, one reply, reported completed)", async () => {
    const { worker } = await survives({
      arm: proxy => [
        proxy.arm({ app: "worker", match: statementNamed("settle"), action: "terminate-after" }),
      ],
    });
    expect(retried(worker)).toContain("complete");
  });

  it("lead, LISTEN: the LISTEN of the lead's wait for reports is terminated before it runs", async () => {
    const { lead } = await survives({
      arm: proxy => [proxy.arm({ app: "lead", match: listenQuery, action: "terminate-before" })],
    });
    expect(retried(lead)).toContain("listen");
  });

  it("lead, wait: the lead's LISTEN connection is terminated while it waits; it listens again on a new one", async () => {
    const { lead } = await survives({
      arm: () => [],
      whileMemberWorks: async proxy => {
        const listening = () => proxy.connections("lead").filter(c => c.listening && c.open);
        await proxy.until(() => listening().length === 1);
        const [first] = listening();
        await proxy.terminate(first!);
        await proxy.until(() => listening().length === 1 && listening()[0] !== first);
      },
    });
    expect(retried(lead)).toContain("listen");
  });

  it("lead, wait: the lead's check of the handoff (get) is terminated before it runs", async () => {
    const { lead } = await survives({
      arm: proxy => [proxy.arm({ app: "lead", match: statementNamed("by_seq"), action: "terminate-before" })],
    });
    expect(retried(lead)).toContain("get");
  });

  it("lead, send: the handoff's send committed, then its answer is lost (stored once, found by its thread)", async () => {
    const { lead } = await survives({
      arm: proxy => [proxy.arm({ app: "lead", match: statementNamed("send"), action: "terminate-after" })],
      stored: armed => armed[0]!.fired,
    });
    expect(retried(lead)).toContain("send");
  });

  it("lead, acknowledge: claiming and completing the reply both lose their answers after committing", async () => {
    const { lead } = await survives({
      arm: proxy => [
        proxy.arm({
          app: "lead",
          match: statementNamed("claim"),
          action: "terminate-after",
          onlyWithRows: true,
        }),
        proxy.arm({ app: "lead", match: statementNamed("settle"), action: "terminate-after" }),
      ],
    });
    expect(retried(lead)).toEqual(expect.arrayContaining(["claim", "complete"]));
  });
});

describe.skipIf(!PG_URL)(`the PostgreSQL server restarts while a worker is idle${skipNote}`, () => {
  let server: TemporaryPostgres | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("pg_ctl restart: the idle worker reconnects, listens again and runs the next handoff; nothing exits", {
    timeout: 120_000,
  }, async () => {
    server = await startTemporaryPostgres({ settings: { fsync: "off", full_page_writes: "off" } });
    const schema = freshSchema("restart");
    await (await createPostgresMailbox({ connectionString: server.url, schema })).close();
    const mock = await startMockAnthropicServer({
      respond: async request => {
        const last = lastUserText(request);
        if (request.body.model !== "lead") return textTurn("alpha finished task-0");
        if (!last.includes("[team_report]"))
          return turn([toolUse("alpha", { mode: "handoff", task: "task-0" })]);
        return textTurn(`reported: ${last.includes("alpha finished task-0")}`);
      },
    });
    const admin = new (await import("pg")).default.Pool({ connectionString: server.url, max: 1 });
    admin.on("error", () => {}); // its idle connection dies with the restart
    const processes: Spawned[] = [];
    const listeners = async () =>
      (
        await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'worker' AND query LIKE 'LISTEN %'",
        )
      ).rows[0].n as number;
    try {
      const url = new URL(server.url);
      url.searchParams.set("application_name", "worker");
      const worker = start(["worker", url.toString(), schema, mock.url, String(LEASE_MS)]);
      processes.push(worker);
      // Idle: it listens for work.
      while ((await listeners()) === 0) await new Promise(resolve => setTimeout(resolve, 20));

      await server.restart();
      await admin.query("SELECT 1").catch(() => {}); // the pool's connection died with the server
      // It comes back by itself: listening again, without having exited.
      while ((await listeners()) === 0) {
        expect(worker.child.exitCode, worker.stderr).toBeNull();
        await new Promise(resolve => setTimeout(resolve, 20));
      }
      expect(retried(worker)).toContain("listen");

      const lead = start(["lead", server.url, schema, mock.url, String(LEASE_MS)]);
      processes.push(lead);
      expect(await lead.exited, lead.stderr).toBe(0);
      expect(JSON.parse(lastLine(lead.stdout))).toEqual({ subtype: "success", result: "reported: true" });
      expect(worker.child.exitCode, worker.stderr).toBeNull();
      worker.child.kill("SIGTERM");
      expect(await worker.exited, worker.stderr).toBe(0);
      expect(JSON.parse(lastLine(worker.stdout))).toMatchObject({ completed: 1, lost: 0 });
    } finally {
      for (const spawned of processes) if (spawned.child.exitCode === null) spawned.child.kill("SIGKILL");
      await mock.close();
      await admin.end();
    }
  });
});
