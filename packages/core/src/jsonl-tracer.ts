import { AppendOnlyFile } from "./append-only-file.js";
import { InvalidOptionError } from "./errors.js";
import { assertKnownOptions } from "./option-validation.js";
import { type ContextTracer, defineContextTracer, type FailurePolicyOptions, withRelease } from "./tracer.js";

export interface JsonlContextTracerOptions extends FailurePolicyOptions {
  /** File the events are appended to, one JSON object per line. Parent directories are created. */
  path: string;
}

/**
 * A tracer that appends one JSON line per event. Events emitted in the same turn of the event loop are written
 * together with one write() on a descriptor kept open in append mode — measured cheaper for the agent loop than
 * asynchronous appends, which pay a thread-pool round trip per event. Each batch reaches the OS before the next
 * turn of the event loop, so a crash loses at most the events of the current turn; flush()/close() write
 * immediately. By default a failed write is swallowed (later events are still tried); with failOnError every
 * event is written at once and a failure propagates out of query() at the event that hit it.
 */
export function createJsonlContextTracer(options: JsonlContextTracerOptions): ContextTracer {
  assertKnownOptions(options, new Set(["path", "failOnError"]), "createJsonlContextTracer()");
  if (typeof options?.path !== "string" || options.path === "") {
    throw new InvalidOptionError(
      'createJsonlContextTracer(): "path" is required, e.g. { path: ".agent-runs/session.jsonl" }.',
    );
  }
  const path = options.path;
  const failOnError = options.failOnError === true;
  const file = new AppendOnlyFile(path);
  let pending: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let failure: unknown;
  let closed = false;

  /** Writes everything pending; throws the write error (and forgets the descriptor, to reopen next time). */
  const writePending = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    if (!pending.length) return;
    const chunk = pending.join("");
    pending = [];
    file.write(chunk);
  };
  const writeInBackground = () => {
    try {
      writePending();
    } catch (error) {
      failure ??= error;
    }
  };
  const flush = async () => {
    writeInBackground();
    if (failure === undefined) return;
    const error = failure;
    failure = undefined;
    throw error;
  };

  const tracer = defineContextTracer(
    {
      onEvent(event) {
        if (closed) throw new InvalidOptionError(`JSONL tracer for ${path} is closed; create a new tracer.`);
        pending.push(`${JSON.stringify(event)}\n`);
        if (failOnError) return writePending();
        scheduled ??= setImmediate(writeInBackground);
      },
      flush,
      async close() {
        closed = true;
        try {
          await flush();
        } finally {
          file.release();
        }
      },
    },
    failOnError ? { failOnError } : {},
  );
  // Agent.close(): write what is pending and close the descriptor; the next event reopens the file.
  return withRelease(tracer, async () => {
    try {
      await flush();
    } finally {
      file.release();
    }
  });
}
