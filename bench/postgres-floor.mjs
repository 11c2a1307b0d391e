// What a claim + complete costs the PostgreSQL server, below the mailbox's own functions (printed figures, never
// timed tests). pgbench (PostgreSQL's C client, so the client's CPU is not in the way) runs transaction mixes, one
// "pair" = claim + complete of one message, with 16 connections, prepared statements, on a throwaway durable server
// (fsync on, PostgreSQL's defaults), interleaved over ROUNDS (default 2) of SECONDS (default 8) each:
//  - minimal: a narrow table with one index on (box, status, id); claim = UPDATE … RETURNING committed without a
//    flush wait, complete = UPDATE … RETURNING committed durably. The floor for two updates per message.
//  - row: the same two plain-SQL updates on the mailbox's real table (its columns, transition log, indexes, CHECKs).
//  - row-hot: the same with `status` in no index (fillfactor 70), so the updates are HOT — not a usable claim path by
//    itself (nothing finds a mailbox's oldest pending message), it prices what HOT saves.
//  - functions: the mailbox's own claim_next() and CALL settle_call() (the gate, the one-live-claim rule, NOTIFY
//    after the durable commit), each connection on its own 4 mailboxes so no claim finds its mailbox busy.
//  - queue-tables: a prototype of the HOT-friendly layout: narrow `pending` and `processing` tables keyed by
//    (mailbox, seq) find the work, so the message row's updates are HOT; otherwise the same functions.
// Server CPU = utime + stime of the postmaster, its children and the children it reaped, from /proc.
// Needs pgbench on PATH or in /usr/lib/postgresql/<version>/bin; prints a skip line without it.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createPostgresMailbox } from "@agent-lattice/mailbox-postgres";
import { startTemporaryPostgres } from "@agent-lattice/mailbox-postgres/test-server";
import pg from "pg";

const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SECONDS = Number(process.env.SECONDS ?? 8);
const ROWS = 300_000;
const TICK_MS = 10; // /proc times are in clock ticks (USER_HZ, 100 on Linux)
const COLUMNS =
  "seq, work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content, status, metadata, created_at, updated_at, attempts, claimed_by, claim_token, lease_expires_at, outcome";

function findPgbench() {
  const dirs = (process.env.PATH ?? "").split(":").filter(Boolean);
  if (existsSync("/usr/lib/postgresql"))
    dirs.push(...readdirSync("/usr/lib/postgresql").map(version => `/usr/lib/postgresql/${version}/bin`));
  return dirs.map(dir => join(dir, "pgbench")).find(file => existsSync(file));
}

/** CPU ms of the postmaster and its children, including the children it already reaped (cutime, cstime). */
function serverCpuMs(postmaster) {
  const stat = pid => {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      return text
        .slice(text.lastIndexOf(")") + 2)
        .split(" ")
        .map(Number);
    } catch {
      return undefined;
    }
  };
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = stat(entry);
    if (!fields) continue;
    if (Number(entry) === postmaster) total += fields[11] + fields[12] + fields[13] + fields[14];
    else if (fields[1] === postmaster) total += fields[11] + fields[12];
  }
  return total * TICK_MS;
}

const wideClaim = table =>
  `UPDATE ${table} SET status = 'processing', claimed_by = 'owner', claim_token = md5(:id::text), lease_expires_at = 30001, attempts = attempts + 1, updated_at = 1, history = history || jsonb_build_array(jsonb_build_array('pending', 'processing', 1, 'tok', 'owner')) WHERE seq = :id AND set_config('synchronous_commit', 'off', true) IS NOT NULL RETURNING ${COLUMNS};`;
const wideComplete = table =>
  `UPDATE ${table} SET status = 'completed', outcome = '{"content":"done"}', claimed_by = NULL, claim_token = NULL, lease_expires_at = NULL, updated_at = 2, history = history || jsonb_build_array(jsonb_build_array(status, 'completed', 2, claim_token, claimed_by)) WHERE seq = :id RETURNING ${COLUMNS};`;
const functions = schema => `\\set b :client_id * 4 + random(0, 3)
SELECT seq, claim_token FROM ${schema}.claim_next('bench::m' || :b, 'owner', md5(random()::text), 30000) \\gset
CALL ${schema}.settle_call(:seq::bigint, :claim_token::text, 'completed', '{"content":"done"}'::json, NULL);
`;
const MIXES = {
  minimal: `\\set id random(1, ${ROWS})
UPDATE floor_min SET status = 'processing', token = 'tok', lease = 1 WHERE id = :id AND set_config('synchronous_commit', 'off', true) IS NOT NULL RETURNING *;
UPDATE floor_min SET status = 'completed', token = NULL, lease = NULL WHERE id = :id RETURNING *;
`,
  row: `\\set id random(1, ${ROWS})\n${wideClaim("floor_row.messages")}\n${wideComplete("floor_row.messages")}\n`,
  "row-hot": `\\set id random(1, ${ROWS})\n${wideClaim("floor_hot.messages")}\n${wideComplete("floor_hot.messages")}\n`,
  functions: functions("floor_fn"),
  "queue-tables": functions("floor_queue"),
};

/** The mailbox's table filled with ROWS pending messages over 64 mailboxes (sent by SQL: sending is not measured). */
const fill = schema => `
  INSERT INTO ${schema}.messages (work_item_id, thread_id, from_mailbox, to_mailbox, kind, content, status, metadata,
                                  created_at, updated_at, attempts, history)
  SELECT 'wi_' || gen_random_uuid(), 'th_' || gen_random_uuid(), 'bench::lead', 'bench::m' || (i % 64), 'message',
         'job ' || i, 'pending', '{}', 0, 0, 0, '[[null, "pending", 0, null, null]]'
    FROM generate_series(1, ${ROWS}) i`;

/** The prototype layout (see the top comment): the same table without the status index, and two queue tables. */
const QUEUE_TABLES = `
  DROP INDEX floor_queue.messages_by_mailbox_status;
  CREATE INDEX ON floor_queue.messages (to_mailbox, seq);
  ALTER TABLE floor_queue.messages SET (fillfactor = 70);
  CREATE TABLE floor_queue.pending (to_mailbox text NOT NULL, seq bigint NOT NULL, PRIMARY KEY (to_mailbox, seq));
  CREATE TABLE floor_queue.processing (to_mailbox text NOT NULL, seq bigint NOT NULL, lease_expires_at bigint NOT NULL,
                                       PRIMARY KEY (to_mailbox, seq));
  CREATE OR REPLACE FUNCTION floor_queue.claim_next(p_mailbox text, p_owner text, p_token text, p_lease_ms bigint)
  RETURNS SETOF floor_queue.messages LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_seq bigint; v_set text;
  BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtextextended('floor_queue/' || p_mailbox, 0)) THEN RETURN; END IF;
    v_set := set_config('synchronous_commit', 'off', true);
    v_now := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    DELETE FROM floor_queue.pending WHERE to_mailbox = p_mailbox
       AND seq = (SELECT seq FROM floor_queue.pending WHERE to_mailbox = p_mailbox ORDER BY seq LIMIT 1
                  FOR UPDATE SKIP LOCKED)
       AND NOT EXISTS (SELECT FROM floor_queue.processing WHERE to_mailbox = p_mailbox)
    RETURNING seq INTO v_seq;
    IF v_seq IS NULL THEN RETURN; END IF;
    INSERT INTO floor_queue.processing VALUES (p_mailbox, v_seq, v_now + p_lease_ms);
    RETURN QUERY UPDATE floor_queue.messages
       SET status = 'processing', claimed_by = p_owner, claim_token = p_token, lease_expires_at = v_now + p_lease_ms,
           attempts = attempts + 1, updated_at = v_now,
           history = history || jsonb_build_array(jsonb_build_array('pending', 'processing', v_now, p_token, p_owner))
     WHERE seq = v_seq RETURNING *;
  END $$;
  CREATE OR REPLACE PROCEDURE floor_queue.settle_call(p_seq bigint, p_token text, p_status text, p_outcome json,
                                                      p_send json, INOUT p_rows jsonb DEFAULT NULL)
  LANGUAGE plpgsql AS $$
  DECLARE v_now bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint; v_row floor_queue.messages;
          v_set text;
  BEGIN
    UPDATE floor_queue.messages
       SET status = p_status, outcome = p_outcome, claimed_by = NULL, claim_token = NULL, lease_expires_at = NULL,
           updated_at = v_now,
           history = history || jsonb_build_array(jsonb_build_array(status, p_status, v_now, claim_token, claimed_by))
     WHERE seq = p_seq AND status = 'processing' AND claim_token = p_token
    RETURNING * INTO v_row;
    IF NOT FOUND THEN p_rows := NULL; RETURN; END IF;
    DELETE FROM floor_queue.processing WHERE to_mailbox = v_row.to_mailbox AND seq = p_seq;
    p_rows := jsonb_build_array(to_jsonb(v_row) - 'history');
    COMMIT;
    v_set := set_config('synchronous_commit', 'off', true);
    v_set := pg_notify('al_' || left(md5('floor_queue/' || v_row.to_mailbox), 24), '')::text;
  END $$;`;

async function prepare(url) {
  for (const schema of ["floor_row", "floor_hot", "floor_fn", "floor_queue"]) {
    const mailbox = await createPostgresMailbox({ connectionString: url, schema, poolSize: 1 });
    await mailbox.close();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      "CREATE TABLE floor_min (id bigint PRIMARY KEY, box int NOT NULL, status text NOT NULL, token text, lease bigint, payload text)",
    );
    await client.query(
      `INSERT INTO floor_min SELECT i, i % 64, 'pending', NULL, NULL, 'job ' || i FROM generate_series(1, ${ROWS}) i`,
    );
    await client.query("CREATE INDEX ON floor_min (box, status, id)");
    await client.query("DROP INDEX floor_hot.messages_by_mailbox_status");
    await client.query("CREATE INDEX ON floor_hot.messages (to_mailbox, seq)");
    await client.query("ALTER TABLE floor_hot.messages SET (fillfactor = 70)");
    await client.query(QUEUE_TABLES);
    for (const schema of ["floor_row", "floor_hot", "floor_fn", "floor_queue"])
      await client.query(fill(schema));
    await client.query(
      "INSERT INTO floor_queue.pending SELECT to_mailbox, seq FROM floor_queue.messages WHERE status = 'pending'",
    );
    for (const table of [
      "floor_min",
      "floor_row.messages",
      "floor_hot.messages",
      "floor_fn.messages",
      "floor_queue.messages",
      "floor_queue.pending",
    ])
      await client.query(`VACUUM ANALYZE ${table}`);
    await client.query("CHECKPOINT");
    return (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  } finally {
    await client.end();
  }
}

function postmasterOf(backend) {
  const text = readFileSync(`/proc/${backend}/stat`, "utf8");
  return Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1]);
}

function pgbench(binary, url, script) {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      ["-n", "-M", "prepared", "-c", "16", "-j", "2", "-T", String(SECONDS), "-f", script, url],
      { timeout: (SECONDS + 60) * 1000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`pgbench failed: ${error.message}\n${stderr}`));
        const processed = /number of transactions actually processed: (\d+)/.exec(stdout);
        resolve(Number(processed?.[1] ?? 0));
      },
    );
  });
}

export async function runPostgresFloor() {
  const binary = findPgbench();
  if (!binary) {
    console.log(JSON.stringify({ bench: "postgres-floor", skipped: "pgbench not found" }));
    return;
  }
  let server;
  try {
    server = await startTemporaryPostgres();
  } catch (error) {
    console.log(JSON.stringify({ bench: "postgres-floor", skipped: String(error.message).split("\n")[0] }));
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "bench-pg-floor-"));
  try {
    const postmaster = postmasterOf(await prepare(server.url));
    const figures = Object.fromEntries(Object.keys(MIXES).map(name => [name, []]));
    const loads = [];
    for (let round = 0; round < ROUNDS; round++) {
      const names = round % 2 ? Object.keys(MIXES).reverse() : Object.keys(MIXES);
      for (const name of names) {
        const script = join(dir, `${name}.sql`);
        writeFileSync(script, MIXES[name]);
        loads.push(+loadavg()[0].toFixed(2));
        const before = serverCpuMs(postmaster);
        const pairs = await pgbench(binary, server.url, script);
        const cpu = serverCpuMs(postmaster) - before;
        figures[name].push({
          pairsPerSecond: Math.round(pairs / SECONDS),
          serverCpuMsPerPair: +(cpu / pairs).toFixed(3),
        });
      }
    }
    console.log(
      JSON.stringify(
        {
          bench: "postgres-floor",
          clients: 16,
          secondsPerRun: SECONDS,
          rounds: ROUNDS,
          figures,
          loadAverage1m: loads,
          cores: 2,
        },
        null,
        2,
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runPostgresFloor();
