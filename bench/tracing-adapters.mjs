// Benchmark: the cost of the hosted tracing adapters on the agent loop. The streamed 20-turn tool loop of
// loop-overhead.mjs (mock model in its own process) runs with no tracer, with a no-op tracer (the control: core's
// trace events built and dropped), with createLangSmithContextTracer (langsmith's real client) and with
// createLangfuseContextTracer (a real NodeTracerProvider + LangfuseSpanProcessor, registered as its README says),
// both sending to local ingestion stand-ins on loopback in their own process (trace-receiver-process.mjs), as
// LangSmith and Langfuse are remote in production: their CPU is not the adapter's. After warm-up rounds, each round
// runs the four variants in a fresh shuffled order; a round's loop time is the query alone (what the agent feels:
// onEvent must never wait on the network), and each tracer is flushed after its loop, timed apart, so no delivery
// spills into the next variant. Prints paired per-round ratios (stats.mjs: median, IQR, bootstrap 95% interval)
// against the target — each adapter ≤ 1.05 of no tracer — for wall time; and, without a target of their own, CPU
// time per run, which the machine's load barely moves: this process's (all threads: LangSmith's worker included)
// and the agent's own thread's (Linux per-thread schedstat: the tracer's cost to the agent itself). The load
// average is printed before and after: on a busy machine a worker thread competes with the agent for cores.
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createBareAgent, defineContextTracer, tool } from "@agent-lattice/core";
import { createLangfuseContextTracer } from "@agent-lattice/tracing-langfuse";
import { createLangSmithContextTracer } from "@agent-lattice/tracing-langsmith";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { context, propagation, trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { z } from "zod/v4";
import { median, startMockServerProcess } from "./mock-server.mjs";
import { pairedRatio } from "./stats.mjs";
import { startReceiverProcess } from "./trace-receiver-process-client.mjs";

const TURNS = 20;
const ROUNDS = Number(process.env.ROUNDS ?? 60);
const WARMUP = 8;
const MODEL = "bench-model";
const TARGET = 1.05;
// A model that answers after this many ms (default 0: instant), as a remote one would: the adapters then do their
// work in the agent's waits (they map each batch when the agent pauses).
const MODEL_DELAY_MS = Number(process.env.MODEL_DELAY_MS ?? 0);
// A full collection after each variant's flush (untimed), so no variant's loop collects the garbage of the one
// before it: an adapter that does its work in the flush would otherwise leave it to the next variant's loop.
// GC_BETWEEN=0 turns it off.
const collect = process.env.GC_BETWEEN === "0" ? () => {} : exposeGc();

function exposeGc() {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc");
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
  const loadAtStart = loadavg().map(value => +value.toFixed(2));
  const model = await startMockServerProcess({
    TOOL_TURNS: String(TURNS - 1),
    MODEL_DELAY_MS: String(MODEL_DELAY_MS),
  });
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
  // Loop and flush: all the work a tracer caused, whenever (and on whichever thread) it was done.
  const totalCpuTimes = { plain: [], noop: [], langsmith: [], langfuse: [] };
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
        const flushCpuStart = process.cpuUsage();
        if (tracer) {
          const start = performance.now();
          await tracer.flush(); // failOnError: a batch the receiver did not take fails the benchmark
          flushMs = performance.now() - start;
        }
        const flushCpu = process.cpuUsage(flushCpuStart);
        collect();
        if (round >= WARMUP) {
          times[variant].push(ms);
          cpuTimes[variant].push(cpuMs);
          totalCpuTimes[variant].push(cpuMs + (flushCpu.user + flushCpu.system) / 1000);
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
    const perTurn = (values, base) => +((median(values) - median(base)) / TURNS).toFixed(3);
    const perRun = values => +median(values).toFixed(2);
    const adapter = name => ({
      loopMedianMs: perRun(times[name]),
      pairedRatio: pairedRatio(times[name], times.plain, TARGET),
      overheadPerTurnMs: perTurn(times[name], times.plain),
      // CPU time of this process during the loop, all threads (LangSmith's worker included): the tracer's whole
      // work, far less exposed to the machine's load than wall time.
      cpuPerRunMs: perRun(cpuTimes[name]),
      cpuPairedRatio: pairedRatio(cpuTimes[name], cpuTimes.plain),
      cpuPerTurnMs: perTurn(cpuTimes[name], cpuTimes.plain),
      // The same with the flush after the loop: what the tracer's work costs in all, on any thread, at any time.
      cpuWithFlushPerRunMs: perRun(totalCpuTimes[name]),
      cpuWithFlushPerTurnMs: perTurn(totalCpuTimes[name], totalCpuTimes.plain),
      // CPU time of the agent's own thread (Linux schedstat): what the tracer costs the agent itself.
      agentThreadPerRunMs: perRun(agentThreadTimes[name]),
      agentThreadPairedRatio: pairedRatio(agentThreadTimes[name], agentThreadTimes.plain),
      agentThreadPerTurnMs: perTurn(agentThreadTimes[name], agentThreadTimes.plain),
      flushMedianMs: perRun(flushes[name]),
      received: counts[name],
    });
    const report = {
      benchmark: "hosted tracing adapters: 20-turn streamed tool loop, no tracer vs LangSmith vs Langfuse",
      node: process.version,
      cpus: availableParallelism(),
      // The machine's load (1, 5, 15 min) before and after: wall-time ratios are only as good as the quiet.
      loadAverage: { start: loadAtStart, end: loadavg().map(value => +value.toFixed(2)) },
      rounds: ROUNDS,
      warmupRounds: WARMUP,
      turns: TURNS,
      modelDelayMs: MODEL_DELAY_MS,
      gcBetweenVariants: process.env.GC_BETWEEN !== "0",
      plain: {
        loopMedianMs: perRun(times.plain),
        cpuPerRunMs: perRun(cpuTimes.plain),
        cpuWithFlushPerRunMs: perRun(totalCpuTimes.plain),
        agentThreadPerRunMs: perRun(agentThreadTimes.plain),
      },
      // The trace model's own cost (events built, then discarded): the floor under both adapters, and the
      // bench's own control (it should read 1.0 within its interval).
      noopTracer: {
        pairedRatio: pairedRatio(times.noop, times.plain),
        cpuPairedRatio: pairedRatio(cpuTimes.noop, cpuTimes.plain),
        agentThreadPerTurnMs: perTurn(agentThreadTimes.noop, agentThreadTimes.plain),
      },
      langsmith: adapter("langsmith"),
      langfuse: adapter("langfuse"),
      target: `each adapter's median paired loop ratio <= ${TARGET} (flush is timed apart and not part of it)`,
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await provider.shutdown().catch(() => undefined);
    // Unregister what provider.register() set, so a later benchmark in this process can register its own.
    trace.disable();
    context.disable();
    propagation.disable();
    await receiver.stop();
    await model.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runTracingAdapters();
