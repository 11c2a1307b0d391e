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
 * so tracing costs the loop almost nothing; flush()/close() wait until everything handed over is on disk. By
 * default a failed write is swallowed (the run goes on, later events are still written). With failOnError every
 * onEvent waits for its write, so a failure propagates out of query() at the event that hit it.
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
  let directoryReady = false;
  const failOnError = options.failOnError === true;

  const drain = async () => {
    while (pending.length) {
      const chunk = pending.join("");
      pending = [];
      try {
        if (!directoryReady) {
          await mkdir(dirname(path), { recursive: true });
          directoryReady = true; // only once it worked: a later attempt may succeed where this one failed
        }
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
        pending.push(`${JSON.stringify(event)}\n`);
        writing ??= Promise.resolve().then(drain);
        if (failOnError) return flush();
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
