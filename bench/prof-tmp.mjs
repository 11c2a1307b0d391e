import { fork } from "node:child_process";
import { createBareAgent, tool } from "@agent-lattice/core";
import { createLangfuseContextTracer } from "@agent-lattice/tracing-langfuse";
import { createLangSmithContextTracer } from "@agent-lattice/tracing-langsmith";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { z } from "zod/v4";
import { startMockServerProcess } from "/work/wt/tracing/bench/mock-server.mjs";
const variant = process.argv[2];
const model = await startMockServerProcess({ TOOL_TURNS: "19" });
const rec = fork("/work/wt/tracing/bench/trace-receiver-process.mjs", { stdio: ["ignore", "inherit", "inherit", "ipc"] });
const url = await new Promise(r => rec.once("message", m => r(m.url)));
const sp = new LangfuseSpanProcessor({ baseUrl: url, publicKey: "p", secretKey: "s" });
new NodeTracerProvider({ spanProcessors: [sp] }).register();
const tracer = variant === "langsmith" ? createLangSmithContextTracer({ apiUrl: url, apiKey: "k" }) : variant === "langfuse" ? createLangfuseContextTracer({ spanProcessor: sp }) : undefined;
const echo = tool("echo", "Echo", z.object({ text: z.string() }), async ({ text }) => ({ content: text.toUpperCase() }));
let total = 0, cpu = 0;
for (let i = 0; i < 40; i++) {
  const agent = createBareAgent({ apiKey: "b", baseURL: model.url, model: "bench-model", tools: [echo], maxTurns: 21, ...(tracer ? { tracer } : {}) });
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for await (const m of agent.query("Check every item.")) {}
  const c = process.cpuUsage(c0);
  if (i >= 5) { total += performance.now() - t0; cpu += (c.user + c.system) / 1000; }
  await tracer?.flush();
}
console.log(variant, "wall/loop", (total / 35).toFixed(1), "cpu/loop", (cpu / 35).toFixed(1));
await model.stop(); rec.disconnect(); process.exit(0);
