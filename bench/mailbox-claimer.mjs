// One claimer process for bench/teams.mjs: claims and completes messages from a SQLite mailbox file until none is
// left, then reports how many it handled, when it started and finished, and its CPU time. A start barrier (a file per
// ready claimer) rather than a start time: on a loaded machine a process can take seconds to start, and one that
// starts early would drain the file alone.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSQLiteMailbox } from "@agent-lattice/mailbox-sqlite";
import Database from "better-sqlite3";

const [file, boxesJson, barrierDir, claimers, name] = process.argv.slice(2);
const mailbox = createSQLiteMailbox({ database: new Database(file) });
const boxes = JSON.parse(boxesJson);
writeFileSync(join(barrierDir, `${name}.ready`), "");
while (readdirSync(barrierDir).filter(entry => entry.endsWith(".ready")).length < Number(claimers))
  await new Promise(resolve => setTimeout(resolve, 2));
const startedAt = Date.now();
const cpu0 = process.cpuUsage();
let handled = 0;
let idle = 0;
while (idle < 2) {
  let got = false;
  for (const box of boxes) {
    const message = await mailbox.claimNext(box);
    if (!message) continue;
    got = true;
    handled += 1;
    await mailbox.complete(message.id, message.claimToken);
  }
  if (got) idle = 0;
  else {
    let open = 0;
    for (const box of boxes) open += (await mailbox.inbox(box, { status: "pending", limit: 1 })).length;
    idle = open ? 0 : idle + 1;
  }
}
const finishedAt = Date.now();
const cpu = process.cpuUsage(cpu0);
process.send?.({ handled, startedAt, finishedAt, cpuMicros: cpu.user + cpu.system });
