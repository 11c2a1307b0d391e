import type { Worker } from "node:worker_threads";
// node:worker_threads is loaded when the first worker starts (process.getBuiltinModule): loading it costs
// several milliseconds, which every `import "agent-lattice"` would pay otherwise.

/**
 * Grep's regular expressions run in a worker thread with a deadline. JavaScript's RegExp backtracks: a pattern
 * such as `(a+)+$` on a long line of `a`s runs for hours and, on the main thread, would freeze the host's event
 * loop (the model stream, other tools, abort). In a worker it freezes only the worker: the worker reports
 * progress after each file, and when it is silent for GREP_FILE_BUDGET_MS the call ends with a clear error and
 * the worker is terminated (V8 interrupts even a running regex).
 *
 * The worker also opens and reads the files (O_NONBLOCK, then fstat: a FIFO or device is skipped, never waited
 * on). It is created on the first Grep call, reused while idle (one is kept, unref'd so it never holds the process
 * open), and replaced after a timeout.
 */

/** Silence from the worker (one file's reading and matching) after which the pattern is judged runaway. */
export const GREP_FILE_BUDGET_MS = 5000;

export interface GrepJob {
  files: string[];
  pattern: string;
  flags: string;
  keepLines: boolean;
  maxFileBytes: number;
  sniffBytes: number;
}

export interface GrepFileMatch {
  path: string;
  lines: string[];
  /** 0-based indexes of matching lines. */
  hits: number[];
}

export interface GrepOutcome {
  matches: GrepFileMatch[];
  binarySkipped: number;
  largeSkipped: number;
  specialSkipped: number;
}

/** The pattern ran longer than the budget on one file. */
export class RegexBudgetError extends Error {
  constructor(
    readonly path: string | undefined,
    readonly budgetMs: number,
  ) {
    super(
      `the regular expression ran for more than ${budgetMs / 1000} s${path ? ` on ${path}` : ""} without finishing, ` +
        "which usually means catastrophic backtracking (nested quantifiers such as (a+)+ or (.*)*). Simplify the " +
        "pattern, e.g. remove nested repetition or anchor it, or narrow path/glob",
    );
    this.name = "RegexBudgetError";
  }
}

// Plain CommonJS run with `eval: true`: no file to ship or locate next to the bundle.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const C = fs.constants;
const FLAGS = C.O_RDONLY | (C.O_NONBLOCK || 0) | (C.O_NOCTTY || 0);
function read(path, max, counts) {
  let fd;
  try {
    fd = fs.openSync(path, FLAGS);
    const info = fs.fstatSync(fd);
    if (!info.isFile()) { counts.special++; return undefined; }
    if (info.size > max) { counts.large++; return undefined; }
    const buffer = Buffer.allocUnsafe(info.size);
    let done = 0;
    while (done < info.size) {
      const count = fs.readSync(fd, buffer, done, info.size - done, done);
      if (count === 0) break;
      done += count;
    }
    return buffer.subarray(0, done);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
parentPort.on("message", job => {
  const lineRegex = new RegExp(job.pattern, job.flags);
  const fileRegex = new RegExp(job.pattern, job.flags + "m");
  const counts = { binary: 0, large: 0, special: 0 };
  let reported = Date.now();
  for (let index = 0; index < job.files.length; index++) {
    if (Date.now() - reported > 100) {
      parentPort.postMessage({ id: job.id, type: "progress", index });
      reported = Date.now();
    }
    const buffer = read(job.files[index], job.maxFileBytes, counts);
    if (buffer === undefined) continue;
    if (buffer.subarray(0, job.sniffBytes).indexOf(0) !== -1) { counts.binary++; continue; }
    const text = buffer.toString("utf8");
    // Whole-file test first: most files do not match, and this avoids splitting them into lines.
    if (!fileRegex.test(text)) continue;
    const lines = text.split("\\n");
    const last = lines.length > 1 && lines[lines.length - 1] === "" ? lines.length - 2 : lines.length - 1;
    const hits = [];
    for (let line = 0; line <= last; line++) {
      const value = lines[line].endsWith("\\r") ? lines[line].slice(0, -1) : lines[line];
      if (lineRegex.test(value)) hits.push(line);
    }
    if (hits.length > 0) {
      parentPort.postMessage({ id: job.id, type: "match", index, hits, lines: job.keepLines ? lines : [] });
      reported = Date.now();
    }
  }
  parentPort.postMessage({ id: job.id, type: "done", counts });
});
`;

type WorkerMessage =
  | { id: number; type: "progress"; index: number }
  | { id: number; type: "match"; index: number; hits: number[]; lines: string[] }
  | { id: number; type: "done"; counts: { binary: number; large: number; special: number } };

const idle: Worker[] = [];
let nextJobId = 1;

function acquire(): Worker {
  const worker =
    idle.pop() ?? new (process.getBuiltinModule("node:worker_threads").Worker)(WORKER_SOURCE, { eval: true });
  worker.ref();
  return worker;
}

function release(worker: Worker): void {
  worker.removeAllListeners("message");
  worker.removeAllListeners("error");
  worker.removeAllListeners("exit");
  if (idle.length === 0) {
    worker.unref();
    idle.push(worker);
  } else void worker.terminate();
}

/** Runs a search in a worker; rejects with RegexBudgetError when one file takes longer than `budgetMs`. */
export function searchInWorker(
  job: GrepJob,
  signal: AbortSignal,
  budgetMs: number = GREP_FILE_BUDGET_MS,
): Promise<GrepOutcome> {
  signal.throwIfAborted();
  const worker = acquire();
  const id = nextJobId++;
  return new Promise<GrepOutcome>((resolve, reject) => {
    const outcome: GrepOutcome = { matches: [], binarySkipped: 0, largeSkipped: 0, specialSkipped: 0 };
    let position = 0;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (error: unknown, keep: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (keep) release(worker);
      else {
        worker.removeAllListeners();
        void worker.terminate();
      }
      if (error) reject(error);
      else resolve(outcome);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(new RegexBudgetError(job.files[position], budgetMs), false), budgetMs);
    };
    const onAbort = () => finish(signal.reason ?? new DOMException("aborted", "AbortError"), false);
    signal.addEventListener("abort", onAbort, { once: true });
    worker.on("message", (message: WorkerMessage) => {
      if (message.id !== id) return;
      if (message.type === "progress") position = message.index;
      else if (message.type === "match") {
        position = message.index + 1;
        outcome.matches.push({ path: job.files[message.index]!, hits: message.hits, lines: message.lines });
      } else {
        outcome.binarySkipped = message.counts.binary;
        outcome.largeSkipped = message.counts.large;
        outcome.specialSkipped = message.counts.special;
        finish(undefined, true);
        return;
      }
      arm();
    });
    worker.on("error", error => finish(error, false));
    worker.on("exit", code => finish(new Error(`the Grep worker exited unexpectedly (code ${code})`), false));
    arm();
    worker.postMessage({ id, ...job });
  });
}
