// Benchmark: what each hosted tracing adapter costs the agent's thread per trace event, measured as CPU time (so
// the machine's load barely moves it). One 20-turn streamed tool loop against the mock (in its own process) is
// recorded, then its 81 events are replayed as fresh runs into a no-op tracer, createLangSmithContextTracer and
// createLangfuseContextTracer (wired as in tracing-adapters.mjs, receivers on loopback in their own process), in
// interleaved rounds after a warm-up. The agent thread's CPU time (Linux per-thread schedstat) is read over each
// replayed run (the hot path: onEvent and the turn of the event loop after each event, where the agent's next step
// would run) and over the pause after it (the adapters map each batch when the agent pauses: the deferred
// mapping, or the hand-over to LangSmith's worker); the process's CPU around each onEvent splits the hot path by
// event type. Each run is flushed after, not timed. Prints per adapter the mean CPU per run beyond the no-op
// tracer's, and for LangSmith the CPU of its worker thread per run (replay and flush: all of langsmith's work).
// Linux only (prints a skip line elsewhere).
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { createBareAgent, defineContextTracer, tool } from "@agent-lattice/core";
import { DEFAULT_QUIET_MS } from "@agent-lattice/core/internal";
import { createLangfuseContextTracer } from "@agent-lattice/tracing-langfuse";
import { createLangSmithContextTracer } from "@agent-lattice/tracing-langsmith";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { context, propagation, trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { z } from "zod/v4";
import { startMockServerProcess } from "./mock-server.mjs";
import { startReceiverProcess } from "./trace-receiver-process-client.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 100);
const WARMUP = 10;
const TURNS = 20;

function threadCpuMs(tid = process.pid) {
  return Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
}

/** This process's thread ids. */
function threadIds() {
  return new Set(readdirSync("/proc/self/task"));
}

async function recordRun() {
  const model = await startMockServerProcess({ TOOL_TURNS: String(TURNS - 1) });
  const echo = tool(
    "echo",
    "Echo text back in upper case",
    z.object({ text: z.string() }),
    async ({ text }) => ({
      content: text.toUpperCase(),
    }),
  );
  const events = [];
  const agent = createBareAgent({
    apiKey: "bench",
    baseURL: model.url,
    model: "bench-model",
    tools: [echo],
    maxTurns: TURNS + 1,
    tracer: defineContextTracer({ onEvent: event => void events.push(event) }),
  });
  for await (const _ of agent.query("Check every item."));
  await model.stop();
  return events;
}

/** process.cpuUsage() in ms: precise (getrusage), but the whole process's, so a worker thread's work counts too. */
function processCpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Replays one run's events as run `runId`, then pauses as an agent waiting on its model would. The agent thread's
 * CPU for the run comes from schedstat, which the kernel brings up to date only at ticks and switches: one reading
 * can be a few ms stale, but a run's total (first to last reading) is right within one tick, and averaging runs
 * makes it exact. The split by event type is read from process.cpuUsage(), precise but including other threads:
 * exact for Langfuse (single-threaded), an upper bound for LangSmith (its worker works meanwhile).
 */
async function replay(tracer, events, runId) {
  const byType = {};
  let sync = 0;
  let tick = 0;
  const threadStart = threadCpuMs();
  for (const recorded of events) {
    const event = { ...recorded, run_id: runId };
    const start = processCpuMs();
    tracer.onEvent(event);
    const returned = processCpuMs();
    await new Promise(resolve => setImmediate(resolve));
    const after = processCpuMs();
    sync += returned - start;
    tick += after - returned;
    byType[event.type] = (byType[event.type] ?? 0) + (after - start);
  }
  const threadReplayed = threadCpuMs();
  // The pause: the adapters' batch is handled DEFAULT_QUIET_MS after the last event.
  await sleep(DEFAULT_QUIET_MS + 15);
  const threadEnd = threadCpuMs();
  return {
    thread: threadEnd - threadStart,
    hotPath: threadReplayed - threadStart,
    atPause: threadEnd - threadReplayed,
    sync,
    tick,
    byType,
  };
}

export async function runTracingAdapterEvents() {
  try {
    threadCpuMs();
  } catch {
    console.log("tracing-adapters-events: skipped (needs Linux per-thread schedstat)");
    return undefined;
  }
  const loadAtStart = loadavg().map(value => +value.toFixed(2));
  const events = await recordRun();
  const receiver = await startReceiverProcess();
  const spanProcessor = new LangfuseSpanProcessor({
    baseUrl: receiver.url,
    publicKey: "pk",
    secretKey: "sk",
  });
  const provider = new NodeTracerProvider({ spanProcessors: [spanProcessor] });
  provider.register();
  const before = threadIds();
  const langsmith = createLangSmithContextTracer({
    apiUrl: receiver.url,
    apiKey: "bench",
    failOnError: true,
  });
  // The thread the LangSmith tracer started (its worker: the mapping and langsmith's client run there).
  const workerThreads = [...threadIds()].filter(tid => !before.has(tid));
  const workerCpuMs = () => workerThreads.reduce((sum, tid) => sum + threadCpuMs(tid), 0);
  const tracers = {
    noop: defineContextTracer({ onEvent() {} }),
    langsmith,
    langfuse: createLangfuseContextTracer({ spanProcessor, failOnError: true }),
  };
  const samples = { noop: [], langsmith: [], langfuse: [] };
  const workerSamples = [];
  try {
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const order = Object.keys(tracers);
      if (round % 2) order.reverse();
      for (const name of order) {
        const workerStart = workerCpuMs();
        const sample = await replay(tracers[name], events, `${name}-${round}`);
        await tracers[name].flush?.();
        if (round >= WARMUP) samples[name].push(sample);
        if (round >= WARMUP && name === "langsmith") workerSamples.push(workerCpuMs() - workerStart);
      }
    }
    await tracers.langsmith.close();
    await tracers.langfuse.close();
    const counts = await receiver.counts();
    if (!counts.langsmith.requests || !counts.langfuse.requests)
      throw new Error(`the receivers got nothing: ${JSON.stringify(counts)}`);
  } finally {
    await provider.shutdown().catch(() => undefined);
    // Unregister what provider.register() set, so a later benchmark in this process can register its own.
    trace.disable();
    context.disable();
    propagation.disable();
    await receiver.stop();
  }
  const mean = (name, pick) => samples[name].reduce((sum, sample) => sum + pick(sample), 0) / ROUNDS;
  const beyondNoop = (name, pick) => +(mean(name, pick) - mean("noop", pick)).toFixed(3);
  const adapter = name => ({
    // The agent thread alone (schedstat), beyond the no-op tracer: the figures to read. In all, then split:
    // during the replay (the hot path: inside the agent's steps) and in the pause after it (the batch).
    agentThreadPerRunMs: beyondNoop(name, s => s.thread),
    agentThreadPerEventUs: +((1000 * beyondNoop(name, s => s.thread)) / events.length).toFixed(1),
    agentThreadHotPathPerRunMs: beyondNoop(name, s => s.hotPath),
    agentThreadAtPausePerRunMs: beyondNoop(name, s => s.atPause),
    // process.cpuUsage() split of the hot path (all threads: for LangSmith an upper bound with its worker).
    synchronousOnEventPerRunMs: beyondNoop(name, s => s.sync),
    turnAfterEventPerRunMs: beyondNoop(name, s => s.tick),
    hotPathByTypePerRunMs: Object.fromEntries(
      Object.keys(samples[name][0].byType).map(type => [type, beyondNoop(name, s => s.byType[type])]),
    ),
  });
  const report = {
    benchmark: "hosted tracing adapters: agent-thread CPU per trace event (one 20-turn run replayed)",
    node: process.version,
    loadAverage: { start: loadAtStart, end: loadavg().map(value => +value.toFixed(2)) },
    rounds: ROUNDS,
    eventsPerRun: events.length,
    noopAgentThreadPerRunMs: +mean("noop", s => s.thread).toFixed(3),
    langsmith: {
      ...adapter("langsmith"),
      // Its worker thread, replay and flush (schedstat): langsmith's run trees, serialization, bodies, HTTP.
      workerThreadPerRunMs: workerThreads.length
        ? +(workerSamples.reduce((sum, ms) => sum + ms, 0) / workerSamples.length).toFixed(3)
        : null,
    },
    langfuse: adapter("langfuse"),
    note: "means per run beyond the no-op tracer's; agentThread excludes LangSmith's worker, the split does not",
  };
  console.log(JSON.stringify(report, null, 2));
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) await runTracingAdapterEvents();
