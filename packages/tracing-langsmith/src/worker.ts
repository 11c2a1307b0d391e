// The LangSmith tracer's worker thread: runs the mapper and langsmith's client (serialization, size estimates,
// HTTP) away from the agent's thread, which only posts events here.
import { parentPort, workerData } from "node:worker_threads";
import { createLangSmithRuntime } from "./langsmith-runtime.js";
import type { FromWorker, ToWorker, WorkerOptions } from "./worker-protocol.js";

const port = parentPort;
if (!port)
  throw new Error("@agent-lattice/tracing-langsmith/worker runs only as the tracer's worker thread.");
const post = (message: FromWorker) => port.postMessage(message);
// The delivery fetch holds each batch's body to retry it, so have langsmith build bodies whole rather than as
// streams of per-part streams (web streams are costly in Node). This thread's environment is its own copy.
process.env.LANGSMITH_DISABLE_MULTIPART_STREAMING ??= "true";
const runtime = createLangSmithRuntime(workerData as WorkerOptions, line => post({ type: "failure", line }));
let latest = 0;

port.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "events": {
      latest = message.seq;
      runtime.push(message.events);
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
