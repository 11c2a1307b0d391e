import {
  type ContextTraceEvent,
  type ContextTracer,
  defineContextTracer,
  InvalidOptionError,
} from "@agent-lattice/core";
import { FailureLog } from "./errors.js";
import { createLangSmithRuntime } from "./langsmith-runtime.js";
import { type LangSmithContextTracerOptions, tracingDisabledByEnv, validateOptions } from "./options.js";
import type { WorkerOptions } from "./worker-protocol.js";
import { startWorkerRuntime, type WorkerRuntime } from "./worker-runtime.js";

/**
 * A ContextTracer that sends every query as a LangSmith run tree (see run-mapper.ts for the mapping).
 *
 * By default the mapping and langsmith's client (serialization, batching, HTTP) run on a worker thread started
 * when the tracer is created, so the agent's thread only queues events and hands each batch over when the agent
 * pauses (worker-runtime.ts): onEvent never waits on the network,
 * and importing this package loads no langsmith at all. With `RunTree`, `runTree` or `client` (objects that cannot
 * cross threads) the same engine runs in-process, loading langsmith when the tracer is created. flush() and
 * close() wait until every run handed over so far has been sent (close() first ends the runs still open, so a
 * short-lived process loses nothing). Redaction is not done here: core applies the agent's `hooks.onTraceEvent`
 * before any tracer sees an event.
 */
export function createLangSmithContextTracer(options: LangSmithContextTracerOptions = {}): ContextTracer {
  validateOptions(options);
  const failOnError = options.failOnError === true;
  if (tracingDisabledByEnv()) return defineContextTracer({ onEvent() {} }, { failOnError });

  const failures = new FailureLog();
  const { RunTree, runTree, client, failOnError: _policy, ...cloneable } = options;
  const onFailure = (line: string) => failures.addLine(line);
  const runtime =
    (!RunTree && !runTree && !client && cloneableOptions(cloneable) && tryWorker(cloneable, onFailure)) ||
    createLangSmithRuntime(options, onFailure);
  let closed = false;

  return defineContextTracer(
    {
      onEvent(event: ContextTraceEvent) {
        if (closed) {
          throw new InvalidOptionError(
            "This LangSmith tracer was closed; create a new tracer with createLangSmithContextTracer().",
          );
        }
        if (failOnError) failures.throwIfAny();
        runtime.push([event]);
      },
      async flush() {
        await runtime.flush();
        failures.throwIfAny();
      },
      async close() {
        if (closed) return;
        closed = true;
        await runtime.close();
        failures.throwIfAny();
      },
    },
    { failOnError },
  );
}

/** The worker runtime, or undefined where no worker thread can start (then the engine runs in-process). */
function tryWorker(options: WorkerOptions, onFailure: (line: string) => void): WorkerRuntime | undefined {
  try {
    return startWorkerRuntime(options, onFailure);
  } catch {
    return undefined;
  }
}

/** Whether the options can be copied to a worker thread (metadata holding a function cannot). */
function cloneableOptions(options: object): boolean {
  try {
    structuredClone(options);
    return true;
  } catch {
    return false;
  }
}
