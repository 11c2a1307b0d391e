// node:child_process is loaded on first use (process.getBuiltinModule): loading it costs several milliseconds,
// which every `import "agent-lattice"` would pay before its first request otherwise.
import { existsSync, readdirSync, readFileSync } from "node:fs";

/**
 * Runs one shell command and owns every process it starts. The shell (or bwrap) is spawned detached, so it leads a
 * new session and process group; on timeout or abort the group and the session get SIGTERM, then SIGKILL after a
 * short grace. When the shell exits on its own, whatever it left running (`cmd &`, and `set -m` jobs, which get
 * process groups of their own but stay in the session) is killed too: a tool call does not leave processes behind.
 * In the sandbox, its PID namespace takes everything with it, whatever the processes did. Without the sandbox, a
 * process that starts a session of its own (setsid(), daemons) cannot be told apart from the host's other
 * processes and survives — which is why the analyser refuses such commands.
 */

export const KILL_GRACE_MS = 1000;
/** How long to wait for output pipes after the group is gone (a setsid'ed child may hold them open). */
const PIPE_GRACE_MS = 200;

export interface RunRequest {
  command: string;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Bytes kept per stream (head and tail); the middle is cut with a note. */
  maxOutputBytes: number;
  /** Program and arguments placed before the shell (the bubblewrap sandbox). */
  prefix?: string[];
}

export interface RunResult {
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  stdout: string;
  stderr: string;
  stdoutCut: number;
  stderrCut: number;
  durationMs: number;
  /** The process group id (the shell's pid, or the sandbox's). */
  pgid: number | undefined;
}

let shellPath: string | undefined;

/** bash when the machine has it (the tool is called Bash), otherwise POSIX sh. */
export function shell(): string {
  shellPath ??=
    ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"].find(path => existsSync(path)) ?? "/bin/sh";
  return shellPath;
}

export function runCommand(request: RunRequest): Promise<RunResult> {
  const started = Date.now();
  const argv = [...(request.prefix ?? []), shell(), "-c", request.command];
  const child = process.getBuiltinModule("node:child_process").spawn(argv[0]!, argv.slice(1), {
    cwd: request.cwd,
    env: request.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout = new CappedOutput(request.maxOutputBytes);
  const stderr = new CappedOutput(request.maxOutputBytes);
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  const pgid = child.pid;
  let timedOut = false;
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;
  const killGroup = (signal: NodeJS.Signals) => {
    if (pgid === undefined) return;
    try {
      process.kill(-pgid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
    killSession(pgid, signal);
  };
  const stop = () => {
    killGroup("SIGTERM");
    killTimer ??= setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, request.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener("abort", onAbort, { once: true });

  return new Promise<RunResult>(resolvePromise => {
    let spawnError: Error | undefined;
    child.once("error", error => {
      spawnError = error;
    });
    const streamsClosed = Promise.all([
      new Promise(done => child.stdout.once("close", done)),
      new Promise(done => child.stderr.once("close", done)),
    ]);
    const finish = async (code: number | null, exitSignal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      request.signal.removeEventListener("abort", onAbort);
      // Leftover background jobs die with the command; then their end of the pipes closes.
      killGroup("SIGKILL");
      if (killTimer) clearTimeout(killTimer);
      await Promise.race([streamsClosed, new Promise(done => setTimeout(done, PIPE_GRACE_MS))]);
      child.stdout.destroy();
      child.stderr.destroy();
      const out = stdout.text();
      const err = stderr.text();
      resolvePromise({
        exitCode: code,
        exitSignal,
        timedOut,
        aborted,
        stdout: out.text,
        stderr: spawnError ? `${err.text}${spawnError.message}` : err.text,
        stdoutCut: out.cut,
        stderrCut: err.cut,
        durationMs: Date.now() - started,
        pgid,
      });
    };
    child.once("exit", (code, exitSignal) => void finish(code, exitSignal));
    child.once("error", () => {
      if (pgid === undefined) void finish(null, null);
    });
  });
}

/**
 * Signals every process of a session (Linux, from /proc): `set -m` jobs leave the shell's process group but not
 * its session. Elsewhere only the group is signalled.
 */
export function killSession(sid: number, signal: NodeJS.Signals): void {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[3]) === sid) process.kill(Number(name), signal);
    } catch {
      // exited meanwhile
    }
  }
}

/** Keeps the first and last bytes of a stream (2/3 head, 1/3 tail) and counts what was cut between. */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private total = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(limit: number) {
    this.headLimit = Math.ceil((limit * 2) / 3);
    this.tailLimit = limit - this.headLimit;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < this.headLimit) {
      const take = chunk.subarray(0, this.headLimit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0 || this.tailLimit === 0) return;
    const joined = Buffer.concat([this.tail, chunk]);
    this.tail = joined.subarray(Math.max(0, joined.length - this.tailLimit));
  }

  text(): { text: string; cut: number } {
    const head = Buffer.concat(this.head).toString("utf8");
    const cut = this.total - this.headBytes - this.tail.length;
    if (cut <= 0) return { text: head + this.tail.toString("utf8"), cut: 0 };
    return { text: `${head}\n[… ${cut} bytes of output cut here …]\n${this.tail.toString("utf8")}`, cut };
  }
}
