// Resume across processes (C25) and no leaked handles after a deadline (C26). These tests run the built
// package (dist/) in child processes; `pnpm test` builds first.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hang, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBareAgent, createJsonlHistoryStore, type ModelMessage } from "../src/index.js";
import { mockServer } from "./helpers.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-resume-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function startChild(
  script: string,
  args: string[],
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [fixture(script), ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout!.on("data", chunk => {
    output += chunk;
  });
  const exited = new Promise<number | null>(resolve => child.once("exit", code => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

function expectWellFormed(history: ModelMessage[]) {
  history.forEach((message, index) => {
    if (message.role !== "assistant") return;
    const uses = message.content.filter(b => b.type === "tool_use").map(b => (b as { id: string }).id);
    if (!uses.length) return;
    const answered = (history[index + 1]!.content as Array<{ tool_use_id?: string }>).map(b => b.tool_use_id);
    expect(answered).toEqual(uses);
  });
}

describe("resume across processes (C25)", () => {
  it("SIGKILL during a tool call: a new agent over the same JSONL file continues, every completed message present, no dangling tool_use", async () => {
    const server = await mockServer([
      toolTurn({ name: "job", input: { step: 1 }, id: "toolu_step1" }),
      toolTurn({ name: "job", input: { step: 2 }, id: "toolu_step2" }),
    ]);
    const path = join(dir, "session.jsonl");
    const run = startChild("resume-child.mjs", [server.url, path]);
    await waitFor(() => run.output().includes("IN_TOOL"), "the child to reach the second tool call");
    run.child.kill("SIGKILL");
    await run.exited;

    const onDisk = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map(line => JSON.parse(line));
    expect(onDisk.map((m: ModelMessage) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);

    server.enqueue(textTurn("Step 2 was interrupted; I will check and rerun it."));
    const resumed = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "mock",
      historyStore: createJsonlHistoryStore({ path }),
    });
    const result = await resumed.prompt("Continue where you left off.");
    expect(result.subtype).toBe("success");

    const sent = server.requests[2]!.body.messages as ModelMessage[];
    expect(sent.map(m => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "user"]);
    expect(sent[0]).toEqual({ role: "user", content: "Run steps 1 and 2." });
    expect(sent[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_step1", content: "step 1 done" },
    ]);
    expect(sent[4]!.content).toEqual([
      expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_step2", is_error: true }),
    ]);
    expectWellFormed(sent);
    // The repair and the new turn were persisted too.
    const after = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map(line => JSON.parse(line));
    expect(after).toHaveLength(7);
    expectWellFormed(after);
  });

  it("SIGKILL while the model is streaming: completed turns survive, the half-streamed one is absent", async () => {
    const server = await mockServer([toolTurn({ name: "job", input: { step: 1 } }), hang()]);
    const path = join(dir, "session.jsonl");
    const run = startChild("resume-child.mjs", [server.url, path]);
    await waitFor(() => server.requests.length === 2, "the second model request");
    run.child.kill("SIGKILL");
    await run.exited;

    server.enqueue(textTurn("resumed"));
    const resumed = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "mock",
      historyStore: createJsonlHistoryStore({ path }),
    });
    expect((await resumed.prompt("Continue.")).result).toBe("resumed");
    const sent = server.requests[2]!.body.messages as ModelMessage[];
    expect(sent.map(m => m.role)).toEqual(["user", "assistant", "user", "user"]);
    expectWellFormed(sent);
  });
});

describe("no handle outlives a query (C26)", () => {
  it("a process whose query ended on its request deadline exits by itself", async () => {
    const server = await mockServer([hang()]);
    const run = startChild("deadline-child.mjs", [server.url]);
    const code = await Promise.race([
      run.exited,
      new Promise<"still running">(resolve => setTimeout(() => resolve("still running"), 15_000)),
    ]);
    if (code === "still running") run.child.kill("SIGKILL");
    expect(code).toBe(0);
    expect(run.output()).toBe("error_timeout\n");
  });
});
