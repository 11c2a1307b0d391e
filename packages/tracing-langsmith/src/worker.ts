// The LangSmith tracer's worker thread: runs the mapper and langsmith's client (serialization, size estimates,
// HTTP) away from the agent's thread, which only posts events here.
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { HistoryDecoder } from "./history-refs.js";
import { createLangSmithRuntime } from "./langsmith-runtime.js";
import type { FromWorker, ToWorker, WorkerOptions } from "./worker-protocol.js";

const port = parentPort;
if (!port)
  throw new Error("@agent-lattice/tracing-langsmith/worker runs only as the tracer's worker thread.");
const post = (message: FromWorker) => port.postMessage(message);
lowerThisThreadsPriority();
// Batches arrive when the agent pauses: mapped as they come (this thread is not the agent's).
const runtime = createLangSmithRuntime(
  workerData as WorkerOptions,
  line => post({ type: "failure", line }),
  true,
);
const decoder = new HistoryDecoder();
const onMissing = (line: string) => runtime.failures.add(line);
let latest = 0;

port.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "events": {
      latest = message.seq;
      runtime.push(message.events.map(wire => decoder.decode(wire, onMissing)));
      void runtime.settled().then(() => {
        if (latest === message.seq) post({ type: "idle", seq: message.seq });
      });
      break;
    }
    case "flush":
    case "close":
      void (message.type === "flush" ? runtime.flush() : runtime.close())
        .catch(error => runtime.failures.add(`${message.type} failed`, error))
        .then(() => post({ type: "done", id: message.id }));
      break;
  }
});

/**
 * Where CPUs are contended (more runnable threads than cores), the agent's thread should come first: this
 * thread's work (serialization, batching, HTTP) only has to be done by the next flush. Linux schedules threads
 * individually and setpriority() on a thread id sets that thread's nice value alone, so the worker asks for nice
 * 10 (about a tenth of the agent's CPU share when both want a core; all of an idle core). Elsewhere the thread id
 * is not to be had this way and nothing changes.
 */
function lowerThisThreadsPriority(): void {
  let threadId: number;
  try {
    threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
  } catch {
    return; // not Linux
  }
  if (!Number.isInteger(threadId) || threadId <= 0 || threadId === process.pid) return;
  try {
    // Never above the process's own priority (a process already niced further keeps its value).
    if (getPriority(threadId) < 10) setPriority(threadId, 10);
  } catch {
    // not permitted (a seccomp profile): run at the process's priority
  }
}
