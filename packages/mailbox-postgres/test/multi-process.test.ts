// Teams across processes on one PostgreSQL mailbox: one lead process (runner execution "remote") and three worker
// processes (runTeamWorker) share a schema and one mock model server. 200 handoffs across 4 members complete; one
// worker is SIGKILLed while it holds claims, which are reclaimed by the others after the lease; every accepted
// message ends in exactly one terminal state; no member's work ever overlaps with itself.
import { fileURLToPath } from "node:url";
import { startMockAnthropicServer, textTurn, toolUse, turn } from "@agent-lattice/testing";
import { afterAll, describe, expect, it } from "vitest";
import { adminPool, closeAdmin, dropSchema, freshSchema, PG_URL, skipNote } from "./pg.js";
import { lastUserText, type Spawned, startNode } from "./processes.js";

const SCRIPT = fileURLToPath(new URL("./fixtures/fleet.mjs", import.meta.url));
const MEMBERS = ["alpha", "beta", "gamma", "delta"];
const BATCHES = 10;
const PER_BATCH = 20; // 10 × 20 = 200 handoffs, 5 per member per batch
const LEASE_MS = 1_500;

const start = (args: string[]) => startNode(SCRIPT, args);

type Logged = [string | null, string, number, string | null, string | null];

describe.skipIf(!PG_URL)(`teams across processes on PostgreSQL${skipNote}`, () => {
  afterAll(closeAdmin);

  it("1 lead + 3 workers: 200 handoffs over 4 members, a worker SIGKILLed mid-run, its claims reclaimed after the lease", {
    timeout: 180_000,
  }, async () => {
    const schema = freshSchema("fleet");
    // Per member: requests in flight right now, the most ever at once, and each request's [start, end].
    const inflight = new Map(MEMBERS.map(member => [member, 0]));
    const maxInflight = new Map(MEMBERS.map(member => [member, 0]));
    const spans: Array<{ member: string; task: string; start: number; end: number }> = [];
    let leadRequests = 0;
    let reportsSeen = 0;
    const server = await startMockAnthropicServer({
      respond: async request => {
        const model = String(request.body.model);
        if (model === "lead") {
          const index = leadRequests++;
          reportsSeen += (lastUserText(request).match(/\[team_report\]/g) ?? []).length;
          if (index >= BATCHES) return textTurn(`All ${BATCHES * PER_BATCH} handoffs reported.`);
          return turn(
            Array.from({ length: PER_BATCH }, (_, j) =>
              toolUse(MEMBERS[j % MEMBERS.length]!, {
                mode: "handoff",
                task: `task-${index * PER_BATCH + j}`,
              }),
            ),
          );
        }
        const task = /task-\d+/.exec(lastUserText(request))?.[0] ?? "?";
        const now = inflight.get(model)! + 1;
        inflight.set(model, now);
        maxInflight.set(model, Math.max(maxInflight.get(model)!, now));
        const span = { member: model, task, start: Date.now(), end: 0 };
        spans.push(span);
        await new Promise(resolve => setTimeout(resolve, 15 + Math.floor(Math.random() * 30)));
        span.end = Date.now();
        inflight.set(model, inflight.get(model)! - 1);
        return textTurn(`${model} finished ${task}`);
      },
    });
    const processes: Spawned[] = [];
    try {
      const workers = [1, 2, 3].map(n =>
        start(["worker", PG_URL, schema, server.url, String(LEASE_MS), `worker-${n}`]),
      );
      processes.push(...workers);
      const lead = start(["lead", PG_URL, schema, server.url, String(LEASE_MS)]);
      processes.push(lead);

      // Wait until a third of the work is done and worker-2 holds at least one claim, then SIGKILL it.
      const pool = adminPool();
      const victim = workers[1]!;
      let killedAt = 0;
      let heldAtKill: string[] = [];
      const deadline = Date.now() + 120_000;
      while (!killedAt) {
        if (Date.now() > deadline) throw new Error(`no kill point reached\n${lead.stderr}`);
        const done = await pool
          .query(
            `SELECT count(*)::int AS n FROM "${schema}".messages WHERE kind = 'delegation' AND status = 'completed'`,
          )
          .catch(() => ({ rows: [{ n: 0 }] }));
        if (done.rows[0].n >= 60) {
          const held = await pool.query(
            `SELECT seq FROM "${schema}".messages WHERE status = 'processing' AND claimed_by = 'worker-2'`,
          );
          if (held.rows.length) {
            victim.child.kill("SIGKILL");
            killedAt = Date.now();
            heldAtKill = held.rows.map(row => String(row.seq));
          }
        }
        if (!killedAt) await new Promise(resolve => setTimeout(resolve, 5));
      }
      await victim.exited;

      expect(await lead.exited, lead.stderr).toBe(0);
      const outcome = JSON.parse(lead.stdout.trim().split("\n").at(-1)!);
      expect(outcome).toMatchObject({ subtype: "success", result: "All 200 handoffs reported." });
      expect(reportsSeen).toBe(BATCHES * PER_BATCH);

      for (const worker of [workers[0]!, workers[2]!]) worker.child.kill("SIGTERM");
      const codes = await Promise.all([workers[0]!.exited, workers[2]!.exited]);
      expect(codes, workers.map(worker => worker.stderr).join("\n")).toEqual([0, 0]);
      const survivors = [workers[0]!, workers[2]!].map(worker => JSON.parse(worker.stdout.trim()));

      const rows = (
        await pool.query(
          `SELECT seq, kind, to_mailbox, parent_message_id, status, attempts, history FROM "${schema}".messages ORDER BY seq`,
        )
      ).rows as Array<{
        seq: string;
        kind: string;
        to_mailbox: string;
        parent_message_id: string | null;
        status: string;
        attempts: number;
        history: Logged[];
      }>;
      const delegations = rows.filter(row => row.kind === "delegation");
      expect(delegations).toHaveLength(200);
      // Every accepted message (delegations, replies) ends in exactly one terminal state.
      for (const row of rows) {
        expect(["completed", "failed", "cancelled"], `message ${row.seq}`).toContain(row.status);
        expect(
          row.history.filter(([, to]) => ["completed", "failed", "cancelled"].includes(to)),
        ).toHaveLength(1);
      }
      expect(delegations.every(row => row.status === "completed")).toBe(true);
      // One reply per delegation, acknowledged by the lead.
      const replies = rows.filter(row => row.kind === "reply");
      expect(replies).toHaveLength(200);
      expect(new Set(replies.map(row => row.parent_message_id)).size).toBe(200);

      // The killed worker's claims were reclaimed by a survivor, only after its lease could have expired (its last
      // renewal was at most a third of a lease before the kill).
      expect(heldAtKill.length).toBeGreaterThan(0);
      for (const seq of heldAtKill) {
        const row = rows.find(candidate => candidate.seq === seq)!;
        const claims = row.history.filter(([, to]) => to === "processing");
        expect(claims.at(-2)?.[4]).toBe("worker-2");
        const reclaim = claims.at(-1)!;
        expect(["worker-1", "worker-3"]).toContain(reclaim[4]);
        expect(reclaim[2]).toBeGreaterThanOrEqual(killedAt + Math.floor((LEASE_MS * 2) / 3) - 50);
        expect(row.status).toBe("completed");
      }

      // No member's work ever overlapped itself: at the model server …
      for (const member of MEMBERS) expect(maxInflight.get(member), member).toBe(1);
      for (const member of MEMBERS) {
        const mine = spans.filter(span => span.member === member).sort((a, b) => a.start - b.start);
        for (let i = 1; i < mine.length; i++) expect(mine[i]!.start).toBeGreaterThanOrEqual(mine[i - 1]!.end);
      }
      // … and in the mailbox: per member, each claim ends (settle, or the kill) before the next one starts.
      for (const member of MEMBERS) {
        const intervals: Array<[number, number]> = [];
        for (const row of delegations.filter(candidate => candidate.to_mailbox === `fleet::${member}`)) {
          let open: number | undefined;
          for (const [, to, at] of row.history) {
            if (to === "processing") {
              if (open !== undefined) intervals.push([open, killedAt]); // a claim that died with its worker
              open = at;
            } else if (open !== undefined) {
              intervals.push([open, at]);
              open = undefined;
            }
          }
        }
        intervals.sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < intervals.length; i++)
          expect(intervals[i]![0], member).toBeGreaterThanOrEqual(intervals[i - 1]![1]);
      }
      // The work was really shared: every surviving worker settled messages.
      for (const survivor of survivors) expect(survivor.completed).toBeGreaterThan(0);
      console.log(
        `multi-process: killed worker-2 holding ${heldAtKill.length} claim(s); survivors completed ${survivors.map(s => `${s.owner}=${s.completed}`).join(", ")}`,
      );
    } finally {
      for (const spawned of processes) if (spawned.child.exitCode === null) spawned.child.kill("SIGKILL");
      await server.close();
      await dropSchema(schema).catch(() => {});
    }
  });
});
