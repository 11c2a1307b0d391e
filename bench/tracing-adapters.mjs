// Benchmark: the cost of the hosted tracing adapters on the agent loop. The streamed 20-turn tool loop of
// loop-overhead.mjs (mock model in its own process) runs with no tracer, with createLangSmithContextTracer
// (langsmith's real client) and with createLangfuseContextTracer (a real NodeTracerProvider +
// LangfuseSpanProcessor), both sending to local ingestion stand-ins on loopback (trace-receiver-process.mjs, its own
// process). Each round runs the three variants in a fresh shuffled order; a round's loop time is the query alone
// (what the agent feels: onEvent must never wait on the network), and each tracer is flushed after its loop, timed
// apart, so no delivery spills into the next variant. Prints paired per-round ratios (stats.mjs) against the
// target — each adapter ≤ 1.05 of no tracer — for wall time; and, without a target of their own, for this
// process's CPU time during the loop (all threads: LangSmith's worker included) and for the CPU time of the
// agent's own thread (Linux per-thread schedstat: the tracer's cost to the agent itself, unaffected by its worker).
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createBareAgent, defineContextTracer, tool } from "@agent-lattice/core";
import { createLangfuseContextTracer } from "@agent-lattice/tracing-langfuse";
import { createLangSmithContextTracer } from "@agent-lattice/tracing-langsmith";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { z } from "zod/v4";
import { median, startMockServerProcess } from "./mock-server.mjs";
import { pairedRatio } from "./stats.mjs";

const TURNS = 20;
const ROUNDS = Number(process.env.ROUNDS ?? 40);
const WARMUP = 5;
const MODEL = "bench-model";
const TARGET = 1.05;

function startReceiverProcess() {
  const child = fork(fileURLToPath(new URL("./trace-receiver-process.mjs", import.meta.url)), {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("message", ({ url }) =>
      resolve({
        url,
        counts: () =>
          new Promise(done => {
            child.once("message", ({ counts }) => done(counts));
            child.send("counts");
          }),
        stop: () =>
          new Promise(done => {
            child.once("exit", done);
            child.disconnect();
          }),
      }),
    );
  });
}

/**
 * CPU time of this process's main thread (the agent's), in ms: Linux's per-thread scheduler statistics, so a
 * tracer's worker thread and other processes do not count. Undefined elsewhere.
 */
function agentThreadCpuMs() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return undefined;
  }
}

const echo = tool(
  "echo",
  "Echo text back in upper case",
  z.object({ text: z.string() }),
  async ({ text }) => ({
    content: text.toUpperCase(),
  }),
);

async function loop(baseURL, tracer) {
  const agent = createBareAgent({
    apiKey: "bench",
    baseURL,
    model: MODEL,
    tools: [echo],
    maxTurns: TURNS + 1,
    ...(tracer ? { tracer } : {}),
  });
  const cpuStart = process.cpuUsage();
  const threadStart = agentThreadCpuMs();
  const start = performance.now();
  let result;
  for await (const message of agent.query("Check every item."))
    if (message.type === "result") result = message;
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const threadEnd = agentThreadCpuMs();
  if (result.subtype !== "success" || result.num_turns !== TURNS)
    throw new Error(`agent loop went wrong: ${JSON.stringify(result)}`);
  return {
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    agentThreadMs: threadEnd === undefined ? Number.NaN : threadEnd - threadStart,
  };
}

export async function runTracingAdapters() {
  const model = await startMockServerProcess({ TOOL_TURNS: String(TURNS - 1) });
  const receiver = await startReceiverProcess();
  const spanProcessor = new LangfuseSpanProcessor({
    baseUrl: receiver.url,
    publicKey: "pk-bench",
    secretKey: "sk-bench",
  });
  const provider = new NodeTracerProvider({ spanProcessors: [spanProcessor] });
  provider.register();
  const tracers = {
    // Calibration: core builds trace events only when a tracer is attached; this one discards them.
    noop: defineContextTracer({ onEvent() {} }),
    langsmith: createLangSmithContextTracer({ apiUrl: receiver.url, apiKey: "bench", failOnError: true }),
    langfuse: createLangfuseContextTracer({ spanProcessor, failOnError: true }),
  };
  const variants = ["plain", "noop", "langsmith", "langfuse"];
  const times = { plain: [], noop: [], langsmith: [], langfuse: [] };
  const cpuTimes = { plain: [], noop: [], langsmith: [], langfuse: [] };
  const agentThreadTimes = { plain: [], noop: [], langsmith: [], langfuse: [] };
  const flushes = { noop: [], langsmith: [], langfuse: [] };
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  try {
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const order = [...variants];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      for (const variant of order) {
        const tracer = tracers[variant];
        const { ms, cpuMs, agentThreadMs } = await loop(model.url, tracer);
        let flushMs = 0;
        if (tracer) {
          const start = performance.now();
          await tracer.flush(); // failOnError: a batch the receiver did not take fails the benchmark
          flushMs = performance.now() - start;
        }
        if (round >= WARMUP) {
          times[variant].push(ms);
          cpuTimes[variant].push(cpuMs);
          agentThreadTimes[variant].push(agentThreadMs);
          if (tracer) flushes[variant].push(flushMs);
        }
      }
    }
    await tracers.langsmith.close();
    await tracers.langfuse.close();
    const counts = await receiver.counts();
    if (!counts.langsmith.requests || !counts.langfuse.requests)
      throw new Error(`the receivers got nothing: ${JSON.stringify(counts)}`);
    const report = {
      benchmark: "hosted tracing adapters: 20-turn streamed tool loop, no tracer vs LangSmith vs Langfuse",
      node: process.version,
      rounds: ROUNDS,
      turns: TURNS,
      plainMedianMs: +median(times.plain).toFixed(2),
      plainCpuMedianMs: +median(cpuTimes.plain).toFixed(2),
      // The trace model's own cost (events built, then discarded): the floor under both adapters.
      noopTracer: {
        pairedRatio: pairedRatio(times.noop, times.plain),
        agentThreadPerTurnMs: +(
          (median(agentThreadTimes.noop) - median(agentThreadTimes.plain)) /
          TURNS
        ).toFixed(3),
      },
      loadAverage: (await import("node:os")).loadavg().map(value => +value.toFixed(2)),
      langsmith: {
        loopMedianMs: +median(times.langsmith).toFixed(2),
        pairedRatio: pairedRatio(times.langsmith, times.plain, TARGET),
        overheadPerTurnMs: +((median(times.langsmith) - median(times.plain)) / TURNS).toFixed(3),
        // CPU time of this process during the loop (the tracer's own work, less exposed to other load).
        cpuPairedRatio: pairedRatio(cpuTimes.langsmith, cpuTimes.plain),
        cpuPerTurnMs: +((median(cpuTimes.langsmith) - median(cpuTimes.plain)) / TURNS).toFixed(3),
        // CPU time of the agent's own thread (Linux schedstat): what the tracer costs the agent itself.
        agentThreadPairedRatio: pairedRatio(agentThreadTimes.langsmith, agentThreadTimes.plain),
        agentThreadPerTurnMs: +(
          (median(agentThreadTimes.langsmith) - median(agentThreadTimes.plain)) /
          TURNS
        ).toFixed(3),
        flushMedianMs: +median(flushes.langsmith).toFixed(2),
        received: counts.langsmith,
      },
      langfuse: {
        loopMedianMs: +median(times.langfuse).toFixed(2),
        pairedRatio: pairedRatio(times.langfuse, times.plain, TARGET),
        overheadPerTurnMs: +((median(times.langfuse) - median(times.plain)) / TURNS).toFixed(3),
        // CPU time of this process during the loop (the tracer's own work, less exposed to other load).
        cpuPairedRatio: pairedRatio(cpuTimes.langfuse, cpuTimes.plain),
        cpuPerTurnMs: +((median(cpuTimes.langfuse) - median(cpuTimes.plain)) / TURNS).toFixed(3),
        // CPU time of the agent's own thread (Linux schedstat): what the tracer costs the agent itself.
        agentThreadPairedRatio: pairedRatio(agentThreadTimes.langfuse, agentThreadTimes.plain),
        agentThreadPerTurnMs: +(
          (median(agentThreadTimes.langfuse) - median(agentThreadTimes.plain)) /
          TURNS
        ).toFixed(3),
        flushMedianMs: +median(flushes.langfuse).toFixed(2),
        received: counts.langfuse,
      },
      target: `each adapter's median paired loop ratio <= ${TARGET} (flush is timed apart and not part of it)`,
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await provider.shutdown().catch(() => undefined);
    await receiver.stop();
    await model.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runTracingAdapters();
