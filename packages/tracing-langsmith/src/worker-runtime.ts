import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
// node:worker_threads is loaded when the first worker starts (process.getBuiltinModule): loading it costs
// several milliseconds, which every `import "agent-lattice"` would pay otherwise.
import type { ContextTraceEvent } from "@agent-lattice/core";
import { QuietTimer } from "@agent-lattice/core/internal";
import { HistoryEncoder } from "./history-refs.js";
import type { FromWorker, ToWorker, WorkerOptions } from "./worker-protocol.js";

/** The tracer thread's side of the worker: what a LangSmithRuntime offers, over messages. */
export interface WorkerRuntime {
  push(events: readonly ContextTraceEvent[]): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the worker (this package's dist/worker.js) and forwards events to it in batches, one message each time
 * the agent pauses (core's QuietTimer: no event for a while, typically while it waits on its model; at the latest a
 * second after a batch's first event), each run's history sent once (history-refs.ts): onEvent only appends. The worker holds the process open only while it has unsent
 * runs (an idle tracer never keeps a process alive); flush() and close() wait for its answer; close() ends the
 * thread.
 */
export function startWorkerRuntime(options: WorkerOptions, onFailure: (line: string) => void): WorkerRuntime {
  // Through the package's own package.json, so no export condition (a test runner's source condition) can pick
  // the TypeScript source: a worker thread runs the built file.
  const root = dirname(
    createRequire(import.meta.url).resolve("@agent-lattice/tracing-langsmith/package.json"),
  );
  const path = join(root, "dist", "worker.js");
  if (!existsSync(path)) throw new Error(`${path} is missing (the package is not built)`);
  const { Worker } = process.getBuiltinModule("node:worker_threads");
  const worker = new Worker(path, { workerData: options, execArgv: withoutConditions(process.execArgv) });
  worker.unref();
  let batch: ContextTraceEvent[] = [];
  // Each run's history crosses to the worker once (see history-refs.ts), not once per turn.
  const encoder = new HistoryEncoder();
  let seq = 0;
  let nextId = 0;
  let idleSeq = 0;
  let stopped: string | undefined;
  const waiting = new Map<number, () => void>();
  // The worker keeps the process alive only while it owes something: unsent runs or an answer to flush/close.
  const hold = () => {
    if (!stopped && (waiting.size > 0 || idleSeq !== seq || batch.length > 0)) worker.ref();
    else worker.unref();
  };

  const stop = (reason: string) => {
    if (stopped) return;
    stopped = reason;
    onFailure(reason);
    for (const resolve of waiting.values()) resolve();
    waiting.clear();
  };
  worker.on("message", (message: FromWorker) => {
    if (message.type === "failure") onFailure(message.line);
    else if (message.type === "idle") idleSeq = message.seq;
    else {
      waiting.get(message.id)?.();
      waiting.delete(message.id);
    }
    hold();
  });
  worker.on("error", error => stop(`the LangSmith tracer's worker failed: ${error.message}`));
  worker.on("exit", code => stop(`the LangSmith tracer's worker exited (code ${code})`));

  const send = () => {
    timer.cancel();
    if (!batch.length || stopped) return;
    const events = batch;
    batch = [];
    seq += 1;
    hold();
    try {
      worker.postMessage({
        type: "events",
        seq,
        events: events.map(event => encoder.encode(event)),
      } satisfies ToWorker);
    } catch (error) {
      encoder.forget(events);
      // An event holding something that cannot be cloned (a function in a tool's input): drop the batch, not the run.
      onFailure(`${events.length} events could not be handed to the worker: ${(error as Error).message}`);
    }
  };
  const timer = new QuietTimer(send);
  const request = (type: "flush" | "close") =>
    new Promise<void>(resolve => {
      send();
      if (stopped) return resolve();
      const id = ++nextId;
      waiting.set(id, resolve);
      hold();
      worker.postMessage({ type, id } satisfies ToWorker);
    });

  return {
    push(events) {
      if (stopped) return;
      for (const event of events) batch.push(event);
      timer.touch();
    },
    flush: () => request("flush"),
    async close() {
      await request("close");
      stopped ??= "closed";
      await worker.terminate();
    },
  };
}

/**
 * The thread's Node options without export conditions: the worker runs this package's built code and its
 * dependencies' published entries, whatever conditions the host (or a test runner pointing at sources) resolves
 * its own modules with.
 */
function withoutConditions(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (arg === "--conditions" || arg === "-C") i++;
    else if (!arg.startsWith("--conditions=") && !arg.startsWith("-C=")) out.push(arg);
  }
  return out;
}
