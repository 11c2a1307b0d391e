// The PostgreSQL mailbox beside the SQLite one (printed figures, never timed tests):
//  1. claim + complete throughput with 1, 4 and 16 concurrent claimers. PostgreSQL: claimers are concurrent loops
//     in this process over one pool of as many connections (how a worker process runs). SQLite: its driver is
//     synchronous, so concurrency means processes sharing the file (bench/mailbox-claimer.mjs). MESSAGES (default
//     4000) messages over 64 mailboxes per run, each run on a fresh schema, VACUUM ANALYZEd and CHECKPOINTed before
//     it is timed; a PostgreSQL claimer asks only mailboxes that still hold work (as a worker woken by watch() does)
//     and stops when all are handled. ROUNDS (default 5) interleaved rounds; median and IQR of claims/s.
//     CLAIMERS (e.g. "16" or "4,16") runs only those claimer counts. Target: PostgreSQL ≥ 2,000 claims/s at 16 claimers. Beside it, the CPU each claim + complete cost — a figure
//     the machine's load does not change much, which explains the throughput: the client's (process.cpuUsage()) and
//     the server's (utime + stime of the server's processes from /proc, when the server runs on this machine), and
//     how many claimNext() calls came back empty (the mailbox was busy) per claim. The hypervisor's steal time during
//     the runs is printed too: on a shared VM it inflates every CPU figure.
//  2. The wake-up latency of an idle worker: a watch() waits on a mailbox; after a quiet pause (100–300 ms) another
//     connection sends a message; latency = send() start → wait() resolved. PostgreSQL: LISTEN/NOTIFY. SQLite:
//     polling with backoff (5 → 200 ms). WAKE_SAMPLES (default 60) samples each. Target: PostgreSQL p50 ≤ 5 ms.
// The server: AGENT_LATTICE_PG_URL, or a throwaway durable one (fsync on, PostgreSQL's defaults) started here.
// The machine is shared: the load average is printed beside the figures.
import { fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPostgresMailbox } from "@agent-lattice/mailbox-postgres";
import { startTemporaryPostgres } from "@agent-lattice/mailbox-postgres/test-server";
import { createSQLiteMailbox } from "@agent-lattice/mailbox-sqlite";
import Database from "better-sqlite3";
import pg from "pg";
import { quantile } from "./stats.mjs";

const MESSAGES = Number(process.env.MESSAGES ?? 4000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WAKE_SAMPLES = Number(process.env.WAKE_SAMPLES ?? 60);
const CLAIMERS = process.env.CLAIMERS ? process.env.CLAIMERS.split(",").map(Number) : [1, 4, 16];
const BOXES = Array.from({ length: 64 }, (_, i) => `bench::m${i}`);

const round2 = value => +value.toFixed(value < 10 ? 3 : 2);
function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: round2(quantile(sorted, 0.5)),
    iqr: [round2(quantile(sorted, 0.25)), round2(quantile(sorted, 0.75))],
    min: round2(sorted[0]),
    max: round2(sorted.at(-1)),
    samples: sorted.length,
  };
}
const load = () => loadavg().map(value => +value.toFixed(2));
const TICK_MS = 10; // /proc times are in clock ticks (USER_HZ, 100 on Linux)

/** utime + stime (ms) and parent pid of a process, from /proc/<pid>/stat; undefined when unreadable. */
function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS };
  } catch {
    return undefined;
  }
}

/** CPU ms used so far by the PostgreSQL server (the postmaster and its children: backends, WAL writer, …). */
function serverCpuMs(postmaster) {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = procStat(pid);
    if (stat && (pid === postmaster || stat.ppid === postmaster)) total += stat.cpuMs;
  }
  return total;
}

/** The postmaster's pid when the server runs on this machine (a backend's parent), else undefined. */
async function findPostmaster(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const backend = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
    const stat = procStat(backend);
    const parent = stat && procStat(stat.ppid);
    return parent ? stat.ppid : undefined;
  } finally {
    await client.end();
  }
}

/** The share of CPU time the hypervisor stole since `since` (from /proc/stat's cpu line). */
function cpuTimes() {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return undefined;
  }
}
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

async function fill(mailbox) {
  // Sending is not what is measured: batches of concurrent sends.
  for (let i = 0; i < MESSAGES; i += 64) {
    await Promise.all(
      Array.from({ length: Math.min(64, MESSAGES - i) }, (_, j) =>
        mailbox.send({ from: "bench::lead", to: BOXES[(i + j) % BOXES.length], content: `job ${i + j}` }),
      ),
    );
  }
}

/**
 * Before a timed run: VACUUM ANALYZE the freshly filled table (planner statistics and the visibility map in place,
 * so autovacuum does not start on it mid-run) and CHECKPOINT (no checkpoint's writes land inside the run). Every
 * run has its own schema, so no run inherits an earlier one's dead rows. Needs a superuser for CHECKPOINT; on a
 * server where the role is not one, the run goes on without it.
 */
async function settle(url, schema) {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`VACUUM ANALYZE "${schema}".messages`);
    await admin.query("CHECKPOINT").catch(() => {});
  } finally {
    await admin.end();
  }
}

/** One PostgreSQL run: `claimers` loops, each walking the mailboxes from its own offset, until all are done. */
async function postgresRun(url, claimers, postmaster) {
  const schema = `bench_${process.pid}_${claimers}_${Date.now()}`;
  const mailbox = await createPostgresMailbox({
    connectionString: url,
    schema,
    poolSize: Math.max(2, claimers),
  });
  try {
    await fill(mailbox);
    await settle(url, schema);
    let handled = 0;
    let empty = 0;
    // What is left in each mailbox, as a worker learns it from watch() wake-ups: a claimer asks only mailboxes with
    // work and stops when every message is handled, so the figure is steady-state claiming, not drain passes over
    // empty mailboxes (2 × 64 empty claims per claimer at the end: half an empty claim per message at 4,000).
    const left = new Map(
      BOXES.map((box, i) => [
        box,
        Math.floor(MESSAGES / BOXES.length) + (i < MESSAGES % BOXES.length ? 1 : 0),
      ]),
    );
    const claimer = async offset => {
      while (handled < MESSAGES) {
        let asked = 0;
        for (let k = 0; k < BOXES.length && handled < MESSAGES; k++) {
          const box = BOXES[(offset + k) % BOXES.length];
          if (!left.get(box)) continue;
          asked += 1;
          const message = await mailbox.claimNext(box, { leaseMs: 30_000 });
          if (!message) {
            empty += 1; // another claimer holds this mailbox's message (one live claim per mailbox)
            continue;
          }
          left.set(box, left.get(box) - 1);
          await mailbox.complete(message.id, message.claimToken, { outcome: { content: "done" } });
          handled += 1;
        }
        // Only mailboxes whose last messages other claimers hold: let them finish.
        if (!asked) await new Promise(resolve => setTimeout(resolve, 1));
      }
    };
    const serverBefore = postmaster ? serverCpuMs(postmaster) : 0;
    const clientBefore = process.cpuUsage();
    const start = performance.now();
    await Promise.all(
      Array.from({ length: claimers }, (_, i) => claimer(Math.floor((i * BOXES.length) / claimers))),
    );
    const seconds = (performance.now() - start) / 1000;
    const client = process.cpuUsage(clientBefore);
    const server = postmaster ? serverCpuMs(postmaster) - serverBefore : undefined;
    if (handled !== MESSAGES) throw new Error(`postgres: handled ${handled} of ${MESSAGES}`);
    return {
      perSecond: handled / seconds,
      clientMs: (client.user + client.system) / 1000 / handled,
      serverMs: server === undefined ? undefined : server / handled,
      // Claims of a busy mailbox (another claimer holds its message) return nothing; they cost round trips too.
      emptyPerClaim: empty / handled,
    };
  } finally {
    await mailbox.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
  }
}

/** One SQLite run: `claimers` processes share a WAL file (the driver is synchronous). */
async function sqliteRun(dir, claimers) {
  const file = join(dir, `claimers-${claimers}-${Date.now()}.db`);
  const db = new Database(file);
  const mailbox = createSQLiteMailbox({ database: db });
  await fill(mailbox);
  const startAt = Date.now() + 600;
  const children = Array.from({ length: claimers }, () => {
    const child = fork(fileURLToPath(new URL("./mailbox-claimer.mjs", import.meta.url)), [
      file,
      JSON.stringify(BOXES),
      String(startAt),
    ]);
    return new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("message", resolve);
    });
  });
  const reports = await Promise.all(children);
  const handled = reports.reduce((sum, report) => sum + report.handled, 0);
  db.close();
  if (handled !== MESSAGES) throw new Error(`sqlite: handled ${handled} of ${MESSAGES}`);
  return handled / ((Math.max(...reports.map(report => report.finishedAt)) - startAt) / 1000);
}

async function throughput(url, dir) {
  const figures = { postgres: {}, sqlite: {} };
  const cpu = {};
  for (const claimers of CLAIMERS) {
    figures.postgres[claimers] = [];
    figures.sqlite[claimers] = [];
    cpu[claimers] = { clientMs: [], serverMs: [], emptyPerClaim: [] };
  }
  const postmaster = await findPostmaster(url);
  await postgresRun(url, 4, postmaster); // warm-up
  const timesBefore = cpuTimes();
  const roundLoad = [];
  for (let round = 0; round < ROUNDS; round++) {
    roundLoad.push(+loadavg()[0].toFixed(2));
    for (const claimers of round % 2 ? [...CLAIMERS].reverse() : CLAIMERS) {
      const run = await postgresRun(url, claimers, postmaster);
      figures.postgres[claimers].push(run.perSecond);
      cpu[claimers].clientMs.push(run.clientMs);
      if (run.serverMs !== undefined) cpu[claimers].serverMs.push(run.serverMs);
      cpu[claimers].emptyPerClaim.push(run.emptyPerClaim);
      figures.sqlite[claimers].push(await sqliteRun(dir, claimers));
    }
  }
  const timesAfter = cpuTimes();
  const out = {};
  for (const backend of ["postgres", "sqlite"]) {
    out[backend] = Object.fromEntries(
      CLAIMERS.map(claimers => [
        `${claimers} claimers`,
        {
          claimsPerSecond: summary(figures[backend][claimers]),
          ...(backend === "postgres"
            ? {
                cpuMsPerClaim: {
                  client: summary(cpu[claimers].clientMs),
                  ...(cpu[claimers].serverMs.length
                    ? { server: summary(cpu[claimers].serverMs) }
                    : { server: "not measured (the server is not on this machine)" }),
                },
                emptyClaimNextPerClaim: summary(cpu[claimers].emptyPerClaim),
              }
            : {}),
        },
      ]),
    );
  }
  // The machine is shared: throughput follows its load (CPU per claim much less), round by round.
  out.loadAverage1mPerRound = roundLoad;
  if (timesBefore && timesAfter) {
    out.stealShare = +(
      (timesAfter.steal - timesBefore.steal) /
      Math.max(1, timesAfter.total - timesBefore.total)
    ).toFixed(3);
  }
  const at16 = quantile(
    [...figures.postgres[16]].sort((a, b) => a - b),
    0.5,
  );
  out.target = `postgres ≥ 2000 claims/s at 16 claimers: ${at16 >= 2000 ? "met" : "missed"} (median ${Math.round(at16)})`;
  return out;
}

/** Latency from send() to a watcher's wake-up, after a quiet pause each time. */
async function wakeLatency(watching, sending, mailboxId) {
  const watch = await watching.watch([mailboxId]);
  const samples = [];
  try {
    for (let i = 0; i < WAKE_SAMPLES + 3; i++) {
      await sleep(100 + Math.floor(Math.random() * 200));
      while (await watch.wait({ timeoutMs: 0 })) {} // nothing left over from the previous sample
      const start = performance.now();
      const woken = watch.wait({ timeoutMs: 5_000 });
      await sending.send({ from: "bench::lead", to: mailboxId, content: `ping ${i}` });
      if (!(await woken)) throw new Error("wake-up timed out");
      if (i >= 3) samples.push(performance.now() - start);
    }
  } finally {
    await watch.close();
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50Ms: round2(quantile(sorted, 0.5)),
    p90Ms: round2(quantile(sorted, 0.9)),
    p99Ms: round2(quantile(sorted, 0.99)),
    iqrMs: [round2(quantile(sorted, 0.25)), round2(quantile(sorted, 0.75))],
    samples: sorted.length,
  };
}

async function wakeUps(url, dir) {
  const schema = `bench_wake_${process.pid}_${Date.now()}`;
  const watcher = await createPostgresMailbox({ connectionString: url, schema, poolSize: 2 });
  const sender = await createPostgresMailbox({ connectionString: url, schema, poolSize: 2 });
  let postgres;
  try {
    postgres = await wakeLatency(watcher, sender, "bench::idle");
  } finally {
    await watcher.close();
    await sender.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
  }
  const file = join(dir, "wake.db");
  const a = new Database(file);
  const b = new Database(file);
  const sqlite = await wakeLatency(
    createSQLiteMailbox({ database: a }),
    createSQLiteMailbox({ database: b }),
    "bench::idle",
  );
  a.close();
  b.close();
  return {
    postgres: { via: "LISTEN/NOTIFY", ...postgres },
    sqlite: { via: "polling data_version, 5 → 200 ms backoff", ...sqlite },
    target: `postgres p50 ≤ 5 ms: ${postgres.p50Ms <= 5 ? "met" : "missed"}`,
  };
}

export async function runPostgresMailbox() {
  let server;
  let url = process.env.AGENT_LATTICE_PG_URL;
  try {
    if (!url) {
      try {
        server = await startTemporaryPostgres();
        url = server.url;
      } catch (error) {
        console.log(
          JSON.stringify({ bench: "postgres-mailbox", skipped: String(error.message).split("\n")[0] }),
        );
        return;
      }
    }
    const settings = new pg.Client({ connectionString: url });
    await settings.connect();
    const config = Object.fromEntries(
      (
        await settings.query(
          "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'server_version', 'shared_buffers')",
        )
      ).rows.map(row => [row.name, row.setting]),
    );
    await settings.end();
    const dir = mkdtempSync(join(tmpdir(), "bench-pg-mailbox-"));
    try {
      const loadBefore = load();
      const claims = await throughput(url, dir);
      const wake = await wakeUps(url, dir);
      console.log(
        JSON.stringify(
          {
            bench: "postgres-mailbox",
            server: { ...config, started: server ? "throwaway, defaults" : "AGENT_LATTICE_PG_URL" },
            messagesPerRun: MESSAGES,
            mailboxes: BOXES.length,
            rounds: ROUNDS,
            throughput: claims,
            wakeUpLatency: wake,
            loadAverage: { before: loadBefore, after: load(), cores: 2 },
          },
          null,
          2,
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await server?.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runPostgresMailbox();
