// Agent lifecycle (core seams issue): close() / Symbol.asyncDispose release the history store's and tracer's
// handles and the workspace; spawned delegation sessions are closed after their call.
import { existsSync, mkdirSync, readdirSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AgentClosedError,
  agentTool,
  createAgentFactory,
  createBareAgent,
  createJsonlContextTracer,
  createJsonlHistoryStore,
  type WorkspaceProvider,
} from "../src/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-lifecycle-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Paths this process holds open (Linux). */
function openPaths(): string[] {
  return readdirSync("/proc/self/fd").flatMap(fd => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

/** A workspace provider that makes a real directory per session and records close() calls. */
function recordingProvider(root: string) {
  const closed: Array<{ dir: string; keep: boolean }> = [];
  const provider: WorkspaceProvider = {
    createSession({ sessionId }) {
      const workspace = join(root, sessionId);
      mkdirSync(workspace, { recursive: true });
      return {
        tools: [],
        systemPromptSection: `workspace ${workspace}`,
        async close({ keep }) {
          closed.push({ dir: workspace, keep });
          if (!keep) await rm(workspace, { recursive: true, force: true });
        },
      };
    },
  };
  return { provider, closed };
}

describe("Agent.close()", () => {
  it("releases the JSONL history store's and tracer's descriptors; both reopen on their next use", async () => {
    const historyPath = join(dir, "history.jsonl");
    const tracePath = join(dir, "trace.jsonl");
    const tracer = createJsonlContextTracer({ path: tracePath });
    const client = createScriptedModelClient({ script: [textTurn("one"), textTurn("two")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: createJsonlHistoryStore({ path: historyPath }),
      tracer,
    });
    await agent.prompt("first");
    await new Promise(resolve => setImmediate(resolve)); // let the tracer's batched write open its file
    expect(openPaths()).toEqual(expect.arrayContaining([historyPath, tracePath]));

    await agent.close();
    expect(openPaths()).not.toContain(historyPath);
    expect(openPaths()).not.toContain(tracePath);

    // The tracer is the host's: still usable by another agent after this one closed.
    const other = createBareAgent({ model: "m", modelClient: client, tracer });
    await other.prompt("second");
    await tracer.close!();
    expect(openPaths()).not.toContain(tracePath);
  });

  it("deletes the private workspace; keepWorkspace keeps it; later queries throw AgentClosedError; idempotent", async () => {
    const { provider, closed } = recordingProvider(dir);
    const { createAgent } = createAgentFactory({ workspace: provider });
    const client = createScriptedModelClient({ script: [textTurn("hi")] });

    const agent = createAgent({ model: "m", modelClient: client });
    await agent.prompt("go");
    const workspace = join(dir, agent.sessionId);
    expect(existsSync(workspace)).toBe(true);
    await Promise.all([agent.close(), agent.close()]);
    await agent.close();
    expect(closed).toEqual([{ dir: workspace, keep: false }]);
    expect(existsSync(workspace)).toBe(false);
    expect(() => agent.query("again")).toThrow(AgentClosedError);
    await expect(agent.prompt("again")).rejects.toMatchObject({ code: "agent_closed" });

    const kept = createAgent({ model: "m", modelClient: client });
    await kept.close({ keepWorkspace: true });
    expect(existsSync(join(dir, kept.sessionId))).toBe(true);
  });

  it("`await using` closes the agent at the end of the scope", async () => {
    const { provider, closed } = recordingProvider(dir);
    const { createAgent } = createAgentFactory({ workspace: provider });
    let sessionId = "";
    {
      await using agent = createAgent({
        model: "m",
        modelClient: createScriptedModelClient({ script: [textTurn("x")] }),
      });
      sessionId = agent.sessionId;
      await agent.prompt("go");
    }
    expect(closed.map(entry => entry.dir)).toEqual([join(dir, sessionId)]);
  });

  it("interrupts and ends a running query, then releases", async () => {
    const client = createScriptedModelClient({ script: [textTurn("slow", { delayMs: 5_000 })] });
    const agent = createBareAgent({ model: "m", modelClient: client });
    const messages: string[] = [];
    const consuming = (async () => {
      for await (const message of agent.query("go")) messages.push(message.type);
    })();
    await new Promise(resolve => setTimeout(resolve, 20));
    const started = Date.now();
    await agent.close();
    await consuming;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(messages[0]).toBe("system");
    expect(() => agent.query("more")).toThrow(AgentClosedError);
  });

  it("a spec delegated with agentTool() spawns a session per call and closes it after the call", async () => {
    const { provider, closed } = recordingProvider(dir);
    const { defineAgent } = createAgentFactory({ workspace: provider });
    const spec = defineAgent({
      model: "m",
      modelClient: createScriptedModelClient({ respond: () => textTurn("done") }),
    });
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "worker", input: { task: "a" } },
          { name: "worker", input: { task: "b" } },
        ]),
        textTurn("ok"),
      ],
    });
    const parent = createBareAgent({ model: "m", modelClient: client, tools: [agentTool("worker", spec)] });
    await parent.prompt("go");
    expect(closed).toHaveLength(2);
    expect(closed.every(entry => !entry.keep && !existsSync(entry.dir))).toBe(true);
  });
});

describe("a long-lived host signal", () => {
  it("is not left holding listeners after many queries end", async () => {
    const shutdown = new AbortController();
    const { EventEmitter } = await import("node:events");
    const client = createScriptedModelClient({ respond: () => textTurn("ok") });
    const agent = createBareAgent({ model: "m", modelClient: client });
    for (let i = 0; i < 50; i++) await agent.prompt(`q${i}`, { signal: shutdown.signal });
    expect(EventEmitter.getEventListeners(shutdown.signal, "abort")).toHaveLength(0);
  });
});
