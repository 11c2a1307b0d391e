import { type ChildProcess, spawn } from "node:child_process";
import type { RecordedRequest } from "@agent-lattice/testing";

/** A node process a test started, with what it printed so far. */
export interface Spawned {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

/** Runs `node <script> ...args`, collecting its output. */
export function startNode(script: string, args: string[]): Spawned {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const spawned: Spawned = {
    child,
    stdout: "",
    stderr: "",
    exited: new Promise(resolve => child.once("exit", code => resolve(code))),
  };
  child.stdout!.on("data", chunk => {
    spawned.stdout += String(chunk);
  });
  child.stderr!.on("data", chunk => {
    spawned.stderr += String(chunk);
  });
  return spawned;
}

/** The text of a mock model request's last message. */
export function lastUserText(request: RecordedRequest): string {
  const last = (request.body.messages as Array<{ content: unknown }>).at(-1)!.content;
  return typeof last === "string" ? last : JSON.stringify(last);
}
