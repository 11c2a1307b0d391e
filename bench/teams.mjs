// Benchmarks for mailbox-backed teams (printed figures, never timed tests):
//  1. The SQLite mailbox on a file database with WAL: send + claim + complete, one claimer in this process (REPEATS
//     runs, each on a fresh file), then four claimer processes sharing the file. Target: ≥ 5,000 messages/s for the
//     single claimer. Beside the rates: this process's CPU time per message (process.cpuUsage), which the machine's
//     load does not change much, and the load average.
//  2. A 10-member fan-out through the team runtime (one handoff batch, maxConcurrentWorkItems 10) vs calling the
//     same agents directly (the lead's tools call the member agents concurrently), against one mock server in its
//     own process. Paired per-round ratios (team / direct) of wall time and of this process's CPU time, median, IQR
//     and bootstrap interval. Target: median wall ratio ≤ 1.05 (team.prompt()); the same team streamed through
//     team.query() is printed beside it.
// PARTS=sqlite or PARTS=fanout runs one half.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSQLiteMailbox } from "@agent-lattice/mailbox-sqlite";
import { createTeam, teamMember } from "@agent-lattice/team";
import { agentTool, createBareAgent, tool } from "agent-lattice";
import Database from "better-sqlite3";
import { z } from "zod/v4";
import { medianOf, pairedRatio } from "./stats.mjs";

const MESSAGES = Number(process.env.MESSAGES ?? 20_000);
const CLAIMERS = Number(process.env.CLAIMERS ?? 4);
const MEMBERS = 10;
const ROUNDS = Number(process.env.ROUNDS ?? 100);
const WARMUP = 5;
const REPEATS = Number(process.env.REPEATS ?? 3);
const PARTS = new Set((process.env.PARTS ?? "sqlite,fanout").split(","));
const load = () => loadavg().map(value => +value.toFixed(2));
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const spread = values => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: +medianOf(sorted).toFixed(1), min: sorted[0], max: sorted.at(-1) };
};

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

async function singleClaimer(dir, run) {
  const db = new Database(join(dir, `single-${run}.db`));
  const mailbox = createSQLiteMailbox({ database: db });
  const boxes = Array.from({ length: 16 }, (_, i) => `bench::m${i}`);
  const cpu0 = cpuMicros();
  const start = performance.now();
  for (let i = 0; i < MESSAGES; i++)
    await mailbox.send({ from: "bench::lead", to: boxes[i % boxes.length], content: `job ${i}` });
  const sent = performance.now();
  const cpu1 = cpuMicros();
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
  const cpu2 = cpuMicros();
  // The WAL's size at the end: SQLite's automatic checkpoint keeps it near 1,000 pages (4 MB) when the mailbox's
  // writes reach it; without checkpoints it would hold every page written (≈ 8 per message).
  const walBytes = statSync(`${join(dir, `single-${run}.db`)}-wal`).size;
  db.close();
  return {
    journalMode: mailbox.journalMode,
    walBytes,
    sendPerSecond: Math.round(MESSAGES / ((sent - start) / 1000)),
    claimCompletePerSecond: Math.round(MESSAGES / ((done - sent) / 1000)),
    sendClaimCompletePerSecond: Math.round(MESSAGES / ((done - start) / 1000)),
    cpuMicrosPerMessage: {
      send: +((cpu1 - cpu0) / MESSAGES).toFixed(1),
      claimComplete: +((cpu2 - cpu1) / MESSAGES).toFixed(1),
      total: +((cpu2 - cpu0) / MESSAGES).toFixed(1),
    },
  };
}

/** REPEATS single-claimer runs, each on a fresh file: the median and range of each figure. */
async function singleClaimerRuns(dir) {
  const runs = [];
  for (let run = 0; run < REPEATS; run++) runs.push(await singleClaimer(dir, run));
  return {
    journalMode: runs[0].journalMode,
    walMegabytesAtEnd: +(Math.max(...runs.map(r => r.walBytes)) / 1e6).toFixed(1),
    runs: runs.length,
    sendClaimCompletePerSecond: spread(runs.map(r => r.sendClaimCompletePerSecond)),
    sendPerSecond: spread(runs.map(r => r.sendPerSecond)),
    claimCompletePerSecond: spread(runs.map(r => r.claimCompletePerSecond)),
    cpuMicrosPerMessage: spread(runs.map(r => r.cpuMicrosPerMessage.total)),
    cpuMicrosPerSend: spread(runs.map(r => r.cpuMicrosPerMessage.send)),
    cpuMicrosPerClaimComplete: spread(runs.map(r => r.cpuMicrosPerMessage.claimComplete)),
  };
}

/**
 * The floor under the adapter on this disk: the same three write transactions per message as bare autocommit
 * statements on the same schema and indexes (insert; claim the oldest pending message through the pending index;
 * complete it), with none of the mailbox's logic (no transition log, leases, tokens, JSON, result objects). The
 * adapter's figure divided by this one is what the mailbox itself costs.
 */
async function rawFloor(dir) {
  const db = new Database(join(dir, "raw.db"));
  createSQLiteMailbox({ database: db, tablePrefix: "raw" });
  const insert = db.prepare(
    "INSERT INTO raw_messages (id, work_item_id, thread_id, from_mailbox, to_mailbox, kind, content, status, created_at, updated_at) VALUES (?, 'w', 't', 'bench::lead', ?, 'message', ?, 'pending', 0, 0)",
  );
  const claim = db.prepare(
    "UPDATE raw_messages SET status = 'processing', claim_token = ? WHERE seq = (SELECT seq FROM raw_messages WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT 1) RETURNING seq",
  );
  const plan = db
    .prepare(
      "EXPLAIN QUERY PLAN SELECT seq FROM raw_messages WHERE to_mailbox = ? AND status = 'pending' ORDER BY seq LIMIT 1",
    )
    .all("x")
    .map(step => step.detail)
    .join("; ");
  const complete = db.prepare(
    "UPDATE raw_messages SET status = 'completed', claim_token = NULL WHERE seq = ?",
  );
  const cpu0 = cpuMicros();
  const start = performance.now();
  for (let i = 0; i < MESSAGES; i++) insert.run(`msg_${i + 1}`, `bench::m${i % 16}`, `job ${i}`);
  for (let i = 0; i < MESSAGES; i++) {
    const { seq } = claim.get("token", `bench::m${i % 16}`);
    complete.run(seq);
  }
  const elapsed = performance.now() - start;
  const cpu = cpuMicros() - cpu0;
  db.close();
  return {
    sendClaimCompletePerSecond: Math.round(MESSAGES / (elapsed / 1000)),
    cpuMicrosPerMessage: +(cpu / MESSAGES).toFixed(1),
    claimPlan: plan,
  };
}

async function concurrentClaimers(dir) {
  const file = join(dir, "shared.db");
  const db = new Database(file);
  const mailbox = createSQLiteMailbox({ database: db });
  const boxes = Array.from({ length: 16 }, (_, i) => `bench::m${i}`);
  for (let i = 0; i < MESSAGES; i++)
    await mailbox.send({ from: "bench::lead", to: boxes[i % boxes.length], content: `job ${i}` });
  const barrier = mkdtempSync(join(dir, "barrier-"));
  const children = Array.from({ length: CLAIMERS }, (_, i) =>
    forkChild("./mailbox-claimer.mjs", [file, JSON.stringify(boxes), barrier, String(CLAIMERS), `c${i}`]),
  );
  const reports = await Promise.all(children.map(child => child.message));
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise(resolve => (child.exitCode !== null ? resolve() : child.once("exit", resolve))),
    ),
  );
  const handled = reports.reduce((sum, report) => sum + report.handled, 0);
  const elapsed =
    Math.max(...reports.map(report => report.finishedAt)) -
    Math.min(...reports.map(report => report.startedAt));
  const completed = db
    .prepare("SELECT COUNT(*) AS n FROM team_mailbox_messages WHERE status = 'completed'")
    .get().n;
  db.close();
  return {
    processes: CLAIMERS,
    handled,
    completed,
    perProcess: reports.map(report => report.handled),
    cpuMicrosPerMessage: +(
      reports.reduce((sum, report) => sum + report.cpuMicros, 0) / Math.max(handled, 1)
    ).toFixed(1),
    claimCompletePerSecond: Math.round(handled / (elapsed / 1000)),
  };
}

/**
 * One round's agents, fresh (every agent is a session that remembers earlier prompts; reusing them would grow every
 * request round after round and make the ratio depend on ROUNDS):
 *  - team: the team runtime, memory mailbox, maxConcurrentWorkItems 10, through team.prompt() (nobody streams the
 *    run, so its events are traced but not delivered);
 *  - teamQuery: the same team through team.query(), every message streamed to a consumer (printed, no target);
 *  - direct: the same agents called directly — the lead delegates to each member with core's agentTool() (the
 *    delegation a lead without a team uses: same tool name, description and input schema as the team's member tool,
 *    the member's messages streamed nested, all ten concurrently), and the members carry the same team_* tool
 *    definitions (installed by an unused team around them). Both sides send the mock the same tool definitions, so
 *    the ratio is what the runtime costs, not how many bytes of schema the model is shown;
 *  - bare: the same fan-out with minimal tools (name + {task}) and members without team tools: what the team's
 *    richer tool definitions cost on top (printed, no target).
 */
export function roundAgents(url) {
  const agent = model => createBareAgent({ apiKey: "bench", baseURL: url, model });
  const members = () =>
    Array.from({ length: MEMBERS }, (_, i) =>
      teamMember({ name: `m${i}`, role: "executor", agent: agent(`member-${i}`) }),
    );
  const teamOf = () =>
    createTeam({
      name: "bench",
      lead: agent("lead"),
      members: members(),
      runner: { maxConcurrentWorkItems: MEMBERS },
    });
  const team = teamOf();
  const teamQuery = teamOf();
  const directMembers = members();
  const twin = createTeam({ name: "bench", lead: agent("lead"), members: directMembers });
  const direct = createBareAgent({
    apiKey: "bench",
    baseURL: url,
    model: "lead",
    toolConcurrency: { mode: "all", maxConcurrency: MEMBERS },
    // Core's delegation tool for each member (what a lead without a team uses), with the team's description, and
    // "handoff" (the mock's fan-out, team runtime only) asked and awaited instead.
    tools: directMembers.map((member, i) => {
      const twinTool = twin.tools.find(candidate => candidate.name === `m${i}`);
      const base = agentTool(`m${i}`, member.agent, { description: twinTool.description });
      return { ...base, handler: (input, extra) => base.handler({ ...input, mode: "ask" }, extra) };
    }),
  });
  const bareMembers = Array.from({ length: MEMBERS }, (_, i) => agent(`member-${i}`));
  const bare = createBareAgent({
    apiKey: "bench",
    baseURL: url,
    model: "lead",
    toolConcurrency: { mode: "all", maxConcurrency: MEMBERS },
    tools: bareMembers.map((member, i) =>
      tool(
        `m${i}`,
        `Member m${i}`,
        z.object({ mode: z.string().optional(), task: z.string() }),
        async ({ task }) => {
          const result = await member.prompt(task);
          return { content: result.result, usage: result.usage };
        },
      ),
    ),
  });
  return { team, teamQuery, direct, bare };
}

async function fanOut(url) {
  const streamed = async agent => {
    let result;
    for await (const message of agent.query("Investigate all ten areas."))
      if (message.type === "result") result = message;
    return result;
  };
  const prompt = async (agent, side) => {
    const result =
      side === "teamQuery" ? await streamed(agent) : await agent.prompt("Investigate all ten areas.");
    if (result.subtype !== "success") throw new Error(`${side} run failed: ${result.subtype}`);
  };
  const sides = ["team", "teamQuery", "direct", "bare"];
  const wall = Object.fromEntries(sides.map(side => [side, []]));
  const cpu = Object.fromEntries(sides.map(side => [side, []]));
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const agents = roundAgents(url);
    // Rotate the order so neither side always runs first (a warm connection pool, the garbage collector's debt).
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    for (const side of order) {
      const cpu0 = cpuMicros();
      const start = performance.now();
      await prompt(agents[side], side);
      if (round < WARMUP) continue;
      wall[side].push(performance.now() - start);
      cpu[side].push(cpuMicros() - cpu0);
    }
  }
  const ms = values => +medianOf(values).toFixed(2);
  return {
    members: MEMBERS,
    rounds: ROUNDS,
    medianMs: {
      team: ms(wall.team),
      teamQuery: ms(wall.teamQuery),
      direct: ms(wall.direct),
      bare: ms(wall.bare),
    },
    pairedRatio: pairedRatio(wall.team, wall.direct, 1.05),
    target: "median paired wall ratio (team / direct, same tool definitions) <= 1.05",
    // This process's CPU time per round (the mock server runs in its own process): what the team runtime adds.
    cpuMedianMs: {
      team: ms(cpu.team.map(v => v / 1000)),
      teamQuery: ms(cpu.teamQuery.map(v => v / 1000)),
      direct: ms(cpu.direct.map(v => v / 1000)),
      bare: ms(cpu.bare.map(v => v / 1000)),
    },
    cpuPairedRatio: pairedRatio(cpu.team, cpu.direct),
    // The same team streamed through team.query(): every team event and nested message handed to a consumer.
    queryWallPairedRatio: pairedRatio(wall.teamQuery, wall.direct),
    queryCpuPairedRatio: pairedRatio(cpu.teamQuery, cpu.direct),
    // The team against the bare fan-out: the runtime plus the bytes of its richer tool definitions.
    bareWallPairedRatio: pairedRatio(wall.team, wall.bare),
    bareCpuPairedRatio: pairedRatio(cpu.team, cpu.bare),
  };
}

export async function runTeams() {
  const dir = mkdtempSync(join(tmpdir(), "bench-teams-"));
  try {
    const report = {
      benchmark: "teams: SQLite mailbox throughput (file, WAL) and 10-member fan-out overhead",
      loadAverageBefore: load(),
    };
    if (PARTS.has("sqlite")) {
      report.messages = MESSAGES;
      report.sqliteSingleClaimer = {
        ...(await singleClaimerRuns(dir)),
        target: "send+claim+complete >= 5000 msg/s",
      };
      report.sqliteRawFloor = {
        ...(await rawFloor(dir)),
        note: "the same 3 write transactions per message as bare SQL on the same indexes: the disk's limit",
      };
      report.sqliteConcurrentClaimers = await concurrentClaimers(dir);
    }
    if (PARTS.has("fanout")) {
      const { child, message } = forkChild("./team-mock-process.mjs", [], { MEMBERS: String(MEMBERS) });
      const { url } = await message;
      try {
        report.fanOut = await fanOut(url);
      } finally {
        await new Promise(resolve => {
          child.once("exit", resolve);
          child.disconnect();
        });
      }
    }
    report.loadAverageAfter = load();
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runTeams();
