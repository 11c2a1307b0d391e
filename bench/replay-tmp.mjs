import { createBareAgent, defineContextTracer, tool } from "@agent-lattice/core";
import { createLangfuseContextTracer } from "@agent-lattice/tracing-langfuse";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { z } from "zod/v4";
import { startMockServerProcess } from "./mock-server.mjs";
const N = Number(process.argv[2] ?? 200);
const child = fork(fileURLToPath(new URL("./trace-receiver-process.mjs", import.meta.url)));
const url = await new Promise(r => child.once("message", m => r(m.url)));
const model = await startMockServerProcess({ TOOL_TURNS: "19" });
const echo = tool("echo", "Echo", z.object({ text: z.string() }), async ({ text }) => ({ content: text.toUpperCase() }));
const events = [];
const rec = defineContextTracer({ onEvent(e) { events.push(e); } });
const agent = createBareAgent({ apiKey: "b", baseURL: model.url, model: "m", tools: [echo], maxTurns: 21, tracer: rec });
for await (const m of agent.query("Check every item.")) {}
await model.stop();
const spanProcessor = new LangfuseSpanProcessor({ baseUrl: url, publicKey: "pk", secretKey: "sk" });
const provider = new NodeTracerProvider({ spanProcessors: [spanProcessor] }); provider.register();
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const lfPath = createRequire(new URL("../packages/tracing-langfuse/package.json", import.meta.url)).resolve("@langfuse/tracing");
const { startObservation } = await import(lfPath.replace(/\.cjs$/, ".mjs"));
if (!startObservation) throw new Error("no startObservation");
const cpu = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
const tracers = { newPath: createLangfuseContextTracer({ spanProcessor }), oldPath: createLangfuseContextTracer({ spanProcessor, startObservation }) };
const res = { newPath: [], oldPath: [] };
for (let i = 0; i < N; i++) {
  for (const name of i % 2 ? ["newPath", "oldPath"] : ["oldPath", "newPath"]) {
    const tracer = tracers[name];
    const runId = `run-${name}-${i}`;
    const c0 = cpu();
    for (const e of events) { tracer.onEvent({ ...e, run_id: runId }); await new Promise(r => setImmediate(r)); }
    res[name].push(cpu() - c0);
    await tracer.flush();
  }
}
const med = a => { const s = [...a].slice(10).sort((x, y) => x - y); return s[s.length >> 1].toFixed(3); };
console.log("agent-thread CPU ms per run (events + mapping, no export): new", med(res.newPath), "old path (injected startObservation)", med(res.oldPath));
await provider.shutdown(); child.disconnect();
