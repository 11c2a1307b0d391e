// Benchmarks for mailbox-backed teams (printed figures, never timed tests):
//  1. The SQLite mailbox on a file database with WAL: send + claim + complete, one claimer in this process, then
//     four claimer processes sharing the file. Target: ≥ 5,000 messages/s for the single claimer.
//  2. A 10-member fan-out through the team runtime (one handoff batch, maxConcurrentWorkItems 10) vs calling the
//     same agents directly (the lead's tools call the member agents concurrently), against one mock server in its
//     own process. Paired per-round ratios (team / direct), median and IQR. Target: median ratio ≤ 1.05.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSQLiteMailbox } from "@agent-lattice/mailbox-sqlite";
import { createTeam, teamMember } from "@agent-lattice/team";
import { createBareAgent, tool } from "agent-lattice";
import Database from "better-sqlite3";
import { z } from "zod/v4";
import { medianOf, pairedRatio } from "./stats.mjs";

const MESSAGES = Number(process.env.MESSAGES ?? 20_000);
const CLAIMERS = Number(process.env.CLAIMERS ?? 4);
const MEMBERS = 10;
const ROUNDS = Number(process.env.ROUNDS ?? 100);
const WARMUP = 5;

function forkChild(script, args, env = {}) {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const message = new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("message", resolve);
  });
  return { child, message };
}

async function singleClaimer(dir) {
  const db = new Database(join(dir, "single.db"));
  const mailbox = createSQLiteMailbox({ database: db });
  const boxes = Array.from({ length: 16 }, (_, i) => `bench::m${i}`);
  const start = performance.now();
  for (let i = 0; i < MESSAGES; i++)
    await mailbox.send({ from: "bench::lead", to: boxes[i % boxes.length], content: `job ${i}` });
  const sent = performance.now();
  let handled = 0;
  while (handled < MESSAGES) {
    for (const box of boxes) {
      const message = await mailbox.claimNext(box);
      if (!message) continue;
      await mailbox.complete(message.id, message.claimToken, { outcome: { content: "done" } });
      handled += 1;
    }
  }
  const done = performance.now();
  db.close();
  return {
    journalMode: mailbox.journalMode,
    sendPerSecond: Math.round(MESSAGES / ((sent - start) / 1000)),
    claimCompletePerSecond: Math.round(MESSAGES / ((done - sent) / 1000)),
    sendClaimCompletePerSecond: Math.round(MESSAGES / ((done - start) / 1000)),
  };
}

/**
 * The floor under the adapter on this disk: the same three IMMEDIATE transactions per message (insert; mark
 * processing; mark completed) as bare statements on the same schema, no mailbox logic. The adapter's figure divided
 * by this one is what the mailbox itself costs.
 */
async function rawFloor(dir) {
  const db = new Database(join(dir, "raw.db"));
  createSQLiteMailbox({ database: db, tablePrefix: "raw" });
  const insert = db.prepare(
    "INSERT INTO raw_messages (seq, id, work_item_id, thread_id, from_mailbox, to_mailbox, kind, content, status, created_at, updated_at) VALUES (?, ?, 'w', 't', 'bench::lead', ?, 'message', ?, 'pending', 0, 0)",
  );
  const next = db.prepare(
    "SELECT seq FROM raw_messages WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT 1",
  );
  const mark = db.prepare("UPDATE raw_messages SET status = ?, claim_token = ? WHERE seq = ?");
  const [begin, commit] = [db.prepare("BEGIN IMMEDIATE"), db.prepare("COMMIT")];
  const tx = work => {
    begin.run();
    const result = work();
    commit.run();
    return result;
  };
  const start = performance.now();
  for (let i = 0; i < MESSAGES; i++)
    tx(() => insert.run(i + 1, `msg_${i + 1}`, `bench::m${i % 16}`, `job ${i}`));
  for (let i = 0; i < MESSAGES; i++) {
    const box = `bench::m${i % 16}`;
    const seq = tx(() => {
      const row = next.get(box);
      mark.run("processing", "token", row.seq);
      return row.seq;
    });
    tx(() => mark.run("completed", null, seq));
  }
  const elapsed = performance.now() - start;
  db.close();
  return { sendClaimCompletePerSecond: Math.round(MESSAGES / (elapsed / 1000)) };
}

async function concurrentClaimers(dir) {
  const file = join(dir, "shared.db");
  const db = new Database(file);
  const mailbox = createSQLiteMailbox({ database: db });
  const boxes = Array.from({ length: 16 }, (_, i) => `bench::m${i}`);
  for (let i = 0; i < MESSAGES; i++)
    await mailbox.send({ from: "bench::lead", to: boxes[i % boxes.length], content: `job ${i}` });
  const startAt = Date.now() + 800;
  const children = Array.from({ length: CLAIMERS }, () =>
    forkChild("./mailbox-claimer.mjs", [file, JSON.stringify(boxes), String(startAt)]),
  );
  const reports = await Promise.all(children.map(child => child.message));
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise(resolve => (child.exitCode !== null ? resolve() : child.once("exit", resolve))),
    ),
  );
  const handled = reports.reduce((sum, report) => sum + report.handled, 0);
  const elapsed = Math.max(...reports.map(report => report.finishedAt)) - startAt;
  const completed = db
    .prepare("SELECT COUNT(*) AS n FROM team_mailbox_messages WHERE status = 'completed'")
    .get().n;
  db.close();
  return {
    processes: CLAIMERS,
    handled,
    completed,
    perProcess: reports.map(report => report.handled),
    claimCompletePerSecond: Math.round(handled / (elapsed / 1000)),
  };
}

async function fanOut(url) {
  const member = i => createBareAgent({ apiKey: "bench", baseURL: url, model: `member-${i}` });
  const teamMembers = Array.from({ length: MEMBERS }, (_, i) => member(i));
  const team = createTeam({
    name: "bench",
    lead: createBareAgent({ apiKey: "bench", baseURL: url, model: "lead" }),
    members: teamMembers.map((agent, i) => teamMember({ name: `m${i}`, role: "executor", agent })),
    runner: { maxConcurrentWorkItems: MEMBERS },
  });
  // The same agents called directly: each tool prompts its member; all ten run concurrently in one batch.
  const directMembers = Array.from({ length: MEMBERS }, (_, i) => member(i));
  const direct = createBareAgent({
    apiKey: "bench",
    baseURL: url,
    model: "lead",
    toolConcurrency: { mode: "all", maxConcurrency: MEMBERS },
    tools: directMembers.map((agent, i) =>
      tool(
        `m${i}`,
        `Member m${i}`,
        z.object({ mode: z.string().optional(), task: z.string() }),
        async ({ task }) => {
          const result = await agent.prompt(task);
          return { content: result.result, usage: result.usage };
        },
      ),
    ),
  });
  const runTeam = async () => {
    const result = await team.prompt("Investigate all ten areas.");
    if (result.subtype !== "success") throw new Error(`team run failed: ${result.subtype}`);
  };
  const runDirect = async () => {
    const result = await direct.prompt("Investigate all ten areas.");
    if (result.subtype !== "success") throw new Error(`direct run failed: ${result.subtype}`);
  };
  const teamTimes = [];
  const directTimes = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const order = round % 2 ? [runTeam, runDirect] : [runDirect, runTeam];
    const times = new Map();
    for (const run of order) {
      const start = performance.now();
      await run();
      times.set(run, performance.now() - start);
    }
    if (round < WARMUP) continue;
    teamTimes.push(times.get(runTeam));
    directTimes.push(times.get(runDirect));
  }
  const teamMedian = medianOf(teamTimes);
  const directMedian = medianOf(directTimes);
  return {
    members: MEMBERS,
    teamMedianMs: +teamMedian.toFixed(2),
    directMedianMs: +directMedian.toFixed(2),
    ratioOfMedians: +(teamMedian / directMedian).toFixed(3),
    pairedRatio: pairedRatio(teamTimes, directTimes, 1.05),
    target: "median paired ratio (team / direct) <= 1.05",
  };
}

export async function runTeams() {
  const dir = mkdtempSync(join(tmpdir(), "bench-teams-"));
  try {
    const single = await singleClaimer(dir);
    const floor = await rawFloor(dir);
    const concurrent = await concurrentClaimers(dir);
    const { child, message } = forkChild("./team-mock-process.mjs", [], { MEMBERS: String(MEMBERS) });
    const { url } = await message;
    let fan;
    try {
      fan = await fanOut(url);
    } finally {
      await new Promise(resolve => {
        child.once("exit", resolve);
        child.disconnect();
      });
    }
    const report = {
      benchmark: "teams: SQLite mailbox throughput (file, WAL) and 10-member fan-out overhead",
      messages: MESSAGES,
      sqliteSingleClaimer: { ...single, target: "send+claim+complete >= 5000 msg/s" },
      sqliteRawFloor: { ...floor, note: "the same 3 transactions per message as bare SQL: the disk's limit" },
      sqliteConcurrentClaimers: concurrent,
      fanOut: fan,
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runTeams();
