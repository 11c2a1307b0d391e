// A claimer process for the TeamMailbox conformance suite: opens the store through the adapter's open module,
// waits at a start barrier until every claimer has opened it, then claims and completes messages from the given
// mailboxes until none is left, and prints the ids it claimed as JSON.
// Usage: node claimer.mjs <open-module> <config-json> <mailbox-ids-json> <barrier-dir> <claimers> <owner>
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [moduleArg, configJson, boxesJson, barrierDir, claimersArg, owner] = process.argv.slice(2);
const specifier = /^[a-z]+:/.test(moduleArg) ? moduleArg : pathToFileURL(moduleArg).href;
const open = (await import(specifier)).default;
const mailbox = await open(JSON.parse(configJson));
const boxes = JSON.parse(boxesJson);
// A barrier, not a start time: on a loaded machine a process can take seconds to start, and one that starts early
// would drain every mailbox alone. Each claimer announces itself, then waits for all the others.
writeFileSync(join(barrierDir, `${owner}.ready`), "");
while (readdirSync(barrierDir).filter(name => name.endsWith(".ready")).length < Number(claimersArg)) {
  await new Promise(resolve => setTimeout(resolve, 2));
}

const claimed = [];
let idle = 0;
while (idle < 3) {
  let got = false;
  for (const box of boxes) {
    const message = await mailbox.claimNext(box, { owner, leaseMs: 30_000 });
    if (!message) continue;
    got = true;
    claimed.push(message.id);
    await mailbox.complete(message.id, message.claimToken, { outcome: { content: `done by ${owner}` } });
  }
  if (got) idle = 0;
  else {
    // Nothing claimable right now: others may hold the mailboxes; stop once nothing is pending anywhere.
    let pending = 0;
    for (const box of boxes) pending += (await mailbox.inbox(box, { status: "pending" })).length;
    idle = pending ? 0 : idle + 1;
    await new Promise(resolve => setTimeout(resolve, 2));
  }
}
await mailbox.close?.();
process.stdout.write(JSON.stringify({ owner, claimed }));
