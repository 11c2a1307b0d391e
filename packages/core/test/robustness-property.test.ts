// Property-style robustness (core robustness issue): over many seeds, a random mix of tool outcomes (success,
// throw, slow, stuck past its timeout, delegation), random consumer return() points, random aborts and random
// interrupts. After every run the history and the JSONL file are well-formed and the agent answers the next query.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModelClient, type MockScriptItem, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { findHistoryProblem } from "../src/history-invariant.js";
import { agentTool, createBareAgent, createJsonlHistoryStore, tool } from "../src/index.js";

const SEEDS = Number(process.env.ROBUSTNESS_SEEDS ?? 40);

/** mulberry32: a small deterministic PRNG, so a failing seed can be replayed. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (max: number) => Math.floor(next() * max), chance: (p: number) => next() < p };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>(resolve => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

const tools = [
  tool("ok", "succeeds", z.object({ n: z.number() }), async ({ n }) => ({ content: `ok ${n}` }), {
    isConcurrencySafe: () => true,
  }),
  tool("fail", "throws", z.object({ n: z.number() }), async () => {
    throw new Error("tool failure");
  }),
  tool("slow", "honours its signal", z.object({ n: z.number() }), async ({ n }, { signal }) => {
    await sleep(5 + (n % 30), signal);
    return { content: signal.aborted ? "stopped" : "slow done" };
  }),
  tool("stuck", "ignores everything", z.object({ n: z.number() }), () => new Promise(() => {}), {
    timeoutMs: 40,
  }),
];
const NAMES = ["ok", "fail", "slow", "stuck", "child"];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-robust-prop-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("robustness over random runs", () => {
  it(`${SEEDS} seeds: history and store stay well-formed, the agent answers the next query`, async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const random = prng(seed);
      const child = createBareAgent({
        model: "m",
        modelClient: createScriptedModelClient({
          respond: () => textTurn("child done", { delayMs: random.int(20) }),
        }),
      });
      const turn = (index: number): MockScriptItem => {
        if (index > 4 || random.chance(0.3)) return textTurn(`final ${index}`, { delayMs: random.int(10) });
        const calls = Array.from({ length: 1 + random.int(3) }, (_, k) => {
          const name = NAMES[random.int(NAMES.length)]!;
          const input = name === "child" ? { task: `task ${k}` } : { n: random.int(100) };
          return { name, input, id: `toolu_${index}_${k}` };
        });
        return toolTurn(calls, { delayMs: random.int(10) });
      };
      const client = createScriptedModelClient({ respond: (_request, index) => turn(index) });
      const path = join(dir, `seed-${seed}.jsonl`);
      const agent = createBareAgent({
        model: "m",
        modelClient: client,
        tools: [...tools, agentTool("child", child)],
        historyStore: createJsonlHistoryStore({ path }),
        toolAbortGraceMs: 30,
        maxTurns: 8,
      });

      const controller = new AbortController();
      const timers: Array<ReturnType<typeof setTimeout>> = [];
      if (random.chance(0.3)) timers.push(setTimeout(() => controller.abort(), random.int(60)));
      if (random.chance(0.3)) timers.push(setTimeout(() => agent.interrupt(), random.int(60)));
      const stopAt = random.chance(0.5) ? random.int(25) : Number.POSITIVE_INFINITY;
      let index = 0;
      try {
        for await (const _message of agent.query("go", { signal: controller.signal })) {
          if (index++ >= stopAt) break;
        }
      } catch (error) {
        throw new Error(`seed ${seed}: the query threw ${String(error)}`);
      }
      for (const timer of timers) clearTimeout(timer); // aimed at this query only

      const history = await agent.getHistory();
      expect(findHistoryProblem(history), `seed ${seed}: history`).toBeUndefined();
      const stored = await createJsonlHistoryStore({ path }).load();
      expect(findHistoryProblem(stored), `seed ${seed}: store`).toBeUndefined();
      expect(stored, `seed ${seed}: store equals history`).toEqual(history);

      const next = await agent.prompt("still there?");
      expect(["success", "error_max_turns"], `seed ${seed}: next query`).toContain(next.subtype);
      expect(findHistoryProblem(await agent.getHistory()), `seed ${seed}: after next`).toBeUndefined();
      await agent.close();
      expect((await child.prompt("child still usable?")).subtype, `seed ${seed}: child`).toBe("success");
    }
  }, 120_000);
});
