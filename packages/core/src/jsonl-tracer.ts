import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { InvalidOptionError } from "./errors.js";
import { assertKnownOptions } from "./option-validation.js";
import { type ContextTracer, defineContextTracer, type FailurePolicyOptions } from "./tracer.js";

export interface JsonlContextTracerOptions extends FailurePolicyOptions {
  /** File the events are appended to, one JSON object per line. Parent directories are created. */
  path: string;
}

/**
 * A tracer that appends one JSON line per event. Events are buffered and written in order by a single writer,
 * so tracing costs the loop almost nothing; flush()/close() wait until everything handed over is on disk. A
 * failed write is reported on the next onEvent/flush (thrown only with failOnError).
 */
export function createJsonlContextTracer(options: JsonlContextTracerOptions): ContextTracer {
  assertKnownOptions(options, new Set(["path", "failOnError"]), "createJsonlContextTracer()");
  if (typeof options?.path !== "string" || options.path === "") {
    throw new InvalidOptionError(
      'createJsonlContextTracer(): "path" is required, e.g. { path: ".agent-runs/session.jsonl" }.',
    );
  }
  const path = options.path;
  let pending: string[] = [];
  let writing: Promise<void> | undefined;
  let failure: unknown;
  let closed = false;
  let directoryReady: Promise<unknown> | undefined;

  const drain = async () => {
    while (pending.length) {
      const chunk = pending.join("");
      pending = [];
      try {
        directoryReady ??= mkdir(dirname(path), { recursive: true });
        await directoryReady;
        await appendFile(path, chunk);
      } catch (error) {
        failure ??= error;
      }
    }
    writing = undefined;
  };
  const takeFailure = () => {
    if (failure === undefined) return;
    const error = failure;
    failure = undefined;
    throw error;
  };
  const flush = async () => {
    while (writing) await writing;
    takeFailure();
  };

  return defineContextTracer(
    {
      onEvent(event) {
        if (closed) throw new InvalidOptionError(`JSONL tracer for ${path} is closed; create a new tracer.`);
        takeFailure();
        pending.push(`${JSON.stringify(event)}\n`);
        writing ??= Promise.resolve().then(drain);
      },
      flush,
      async close() {
        closed = true;
        await flush();
      },
    },
    options.failOnError !== undefined ? { failOnError: options.failOnError } : {},
  );
}
