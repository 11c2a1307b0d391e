// Benchmark: the cost of persistence and tracing. (1) JSONL history store append throughput, durability "write"
// and "fsync"; (2) JSONL context tracer throughput (N events handed over, then flush); (3) the same streamed
// 20-turn tool loop as loop-overhead.mjs with no tracer, with a JSONL tracer and with a JSONL history store
// (plus a no-op tracer, which isolates the cost of building the events from the cost of writing them), against
// one mock server in its own process; interleaved rounds, medians, ratios. Prints one JSON report.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createBareAgent,
  createJsonlContextTracer,
  createJsonlHistoryStore,
  defineContextTracer,
  tool,
} from "agent-lattice";
import { z } from "zod/v4";
import { median, startMockServerProcess } from "./mock-server.mjs";

const APPENDS = Number(process.env.APPENDS ?? 5000);
const APPEND_ROUNDS = Number(process.env.APPEND_ROUNDS ?? 3);
const EVENTS = Number(process.env.EVENTS ?? 50_000);
const EVENT_ROUNDS = Number(process.env.EVENT_ROUNDS ?? 5);
const TURNS = 20;
const ROUNDS = Number(process.env.ROUNDS ?? 30);
const WARMUP = 5;
const MODEL = "bench-model";

let fileCounter = 0;
const nextPath = (dir, label) => join(dir, `${label}-${++fileCounter}.jsonl`);

async function countLines(path) {
  const text = await readFile(path, "utf8");
  let lines = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
  return lines;
}

/** (1) appends/s of createJsonlHistoryStore().append, awaited one by one as the agent loop does. */
async function historyAppendThroughput(dir, durability) {
  const rates = [];
  for (let round = 0; round < APPEND_ROUNDS; round++) {
    const path = nextPath(dir, `history-${durability}`);
    const store = createJsonlHistoryStore({ path, durability, failOnError: true });
    const start = performance.now();
    for (let i = 0; i < APPENDS; i++) {
      await store.append(
        i % 2 === 0
          ? { role: "user", content: `message ${i}: please check the next item` }
          : { role: "assistant", content: [{ type: "text", text: `reply ${i}: the item is fine` }] },
      );
    }
    const ms = performance.now() - start;
    const lines = await countLines(path);
    if (lines !== APPENDS) throw new Error(`history store wrote ${lines} lines, expected ${APPENDS}`);
    rates.push((APPENDS / ms) * 1000);
    await rm(path, { force: true });
  }
  const rate = median(rates);
  return { appendsPerSec: Math.round(rate), usPerAppend: +(1e6 / rate).toFixed(1), rounds: APPEND_ROUNDS };
}

/** (2) events/s through createJsonlContextTracer: hand over N events, then flush() until all are on disk. */
async function tracerThroughput(dir) {
  const rates = [];
  for (let round = 0; round < EVENT_ROUNDS; round++) {
    const path = nextPath(dir, "trace");
    const tracer = createJsonlContextTracer({ path, failOnError: true });
    const time = new Date().toISOString();
    const start = performance.now();
    for (let seq = 0; seq < EVENTS; seq++) {
      tracer.onEvent({
        session_id: "bench-session",
        run_id: "bench-run",
        seq,
        source: "agent",
        type: "tool_result",
        time,
        data: {
          type: "tool_result",
          tool_use_id: `toolu_${seq}`,
          content: "CALL 1 ".repeat(8),
          name: "echo",
        },
      });
    }
    await tracer.flush();
    const ms = performance.now() - start;
    await tracer.close();
    const lines = await countLines(path);
    if (lines !== EVENTS) throw new Error(`tracer wrote ${lines} lines, expected ${EVENTS}`);
    rates.push((EVENTS / ms) * 1000);
    await rm(path, { force: true });
  }
  const rate = median(rates);
  return { eventsPerSec: Math.round(rate), usPerEvent: +(1e6 / rate).toFixed(2), rounds: EVENT_ROUNDS };
}

/** (3) one streamed 20-turn tool loop; `variant`: nothing, a JSONL tracer, a no-op tracer or a JSONL store. */
async function agentLoop(baseURL, variant, dir) {
  const echo = tool(
    "echo",
    "Echo text back in upper case",
    z.object({ text: z.string() }),
    async ({ text }) => ({
      content: text.toUpperCase(),
    }),
  );
  const path = nextPath(dir, `loop-${variant}`);
  const tracer =
    variant === "tracer"
      ? createJsonlContextTracer({ path, failOnError: true })
      : variant === "noopTracer"
        ? defineContextTracer({ onEvent() {} })
        : undefined;
  const historyStore =
    variant === "history" ? createJsonlHistoryStore({ path, failOnError: true }) : undefined;
  const start = performance.now();
  const agent = createBareAgent({
    apiKey: "bench",
    baseURL,
    model: MODEL,
    tools: [echo],
    maxTurns: TURNS + 1,
    ...(tracer ? { tracer } : {}),
    ...(historyStore ? { historyStore } : {}),
  });
  let result;
  for await (const message of agent.query("Check every item."))
    if (message.type === "result") result = message;
  // The run is only done once its trace is on disk: flush is part of the measured cost.
  await tracer?.flush();
  const ms = performance.now() - start;
  if (result.subtype !== "success" || result.num_turns !== TURNS)
    throw new Error(`agent loop (${variant}) went wrong: ${JSON.stringify(result)}`);
  if (variant === "tracer" || variant === "history") {
    // History: the prompt, TURNS assistant turns and TURNS - 1 tool results. Trace: run_start, user_message,
    // model_request + assistant_message per turn, tool_use + tool_result per tool turn, result.
    const expected = variant === "history" ? 2 * TURNS : 4 * TURNS + 1;
    const lines = await countLines(path);
    if (lines !== expected)
      throw new Error(`agent loop (${variant}) wrote ${lines} lines, expected ${expected}`);
    await rm(path, { force: true });
  }
  return ms;
}

async function loopOverhead(dir) {
  const server = await startMockServerProcess({ TOOL_TURNS: String(TURNS - 1) });
  try {
    const variants = ["plain", "tracer", "noopTracer", "history"];
    const times = { plain: [], tracer: [], noopTracer: [], history: [] };
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      // A fresh (seeded) shuffle per round: no variant always runs first, or always right after another one
      // whose garbage it would then have to collect.
      const order = [...variants];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      for (const variant of order) {
        const ms = await agentLoop(server.url, variant, dir);
        if (round >= WARMUP) times[variant].push(ms);
      }
    }
    const plain = median(times.plain);
    const traced = median(times.tracer);
    const noop = median(times.noopTracer);
    const history = median(times.history);
    return {
      rounds: ROUNDS,
      turns: TURNS,
      plainMedianMs: +plain.toFixed(2),
      tracerMedianMs: +traced.toFixed(2),
      noopTracerMedianMs: +noop.toFixed(2),
      historyStoreMedianMs: +history.toFixed(2),
      tracerRatio: +(traced / plain).toFixed(3),
      noopTracerRatio: +(noop / plain).toFixed(3),
      historyStoreRatio: +(history / plain).toFixed(3),
      tracerOverheadPerTurnMs: +((traced - plain) / TURNS).toFixed(3),
      historyStoreOverheadPerTurnMs: +((history - plain) / TURNS).toFixed(3),
      target: "tracerRatio <= 1.05 (JSONL tracer overhead <= 5%)",
    };
  } finally {
    await server.stop();
  }
}

export async function runTracing() {
  const dir = await mkdtemp(join(tmpdir(), "agent-lattice-bench-tracing-"));
  try {
    const report = {
      benchmark:
        "tracing and persistence: JSONL history store, JSONL context tracer, overhead on a 20-turn loop",
      node: process.version,
      historyAppend: {
        messages: APPENDS,
        write: await historyAppendThroughput(dir, "write"),
        fsync: await historyAppendThroughput(dir, "fsync"),
      },
      jsonlTracer: { events: EVENTS, ...(await tracerThroughput(dir)) },
      loopOverhead: await loopOverhead(dir),
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runTracing();
