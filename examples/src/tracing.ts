/**
 * Tracing to a local JSONL file, LangSmith and Langfuse at once — the README's composite-tracer example.
 *
 *   pnpm --filter @agent-lattice/examples tracing
 *
 * LangSmith is configured by LANGSMITH_ENDPOINT / LANGSMITH_API_KEY / LANGSMITH_PROJECT (LANGSMITH_WORKSPACE_ID
 * for org-scoped keys), Langfuse by LANGFUSE_BASE_URL / LANGFUSE_PUBLIC_KEY / LANGFUSE_SECRET_KEY. Without them
 * the hosted tracers cannot deliver — that never affects the agent — and the JSONL trace is still written. The
 * model is the embedded mock server unless DEEPSEEK_API_KEY or ANTHROPIC_API_KEY is set.
 */
import { pathToFileURL } from "node:url";
import { createLangfuseContextTracer } from "@agent-lattice/tracing-langfuse";
import { createLangSmithContextTracer } from "@agent-lattice/tracing-langsmith";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { createBareAgent, createCompositeContextTracer, createJsonlContextTracer } from "agent-lattice";
import { calculator } from "./demo-tools.js";
import { resolveProvider } from "./provider.js";

export interface TracingExampleOptions {
  /** Where the JSONL trace goes (default .agent-runs/session.jsonl). */
  path?: string;
  write?: (text: string) => void;
}

export async function runTracingExample(options: TracingExampleOptions = {}): Promise<number> {
  const write = options.write ?? (text => process.stdout.write(text));
  const path = options.path ?? ".agent-runs/session.jsonl";

  // instrumentation: register the span processor before agents run.
  const langfuseSpanProcessor = new LangfuseSpanProcessor();
  const tracerProvider = new NodeTracerProvider({ spanProcessors: [langfuseSpanProcessor] });
  tracerProvider.register();

  const tracer = createCompositeContextTracer([
    createJsonlContextTracer({ path }),
    createLangSmithContextTracer({
      projectName: process.env.LANGSMITH_PROJECT,
      workspaceId: process.env.LANGSMITH_WORKSPACE_ID,
      tags: ["local-debug"],
    }),
    createLangfuseContextTracer({
      // Drained by tracer.flush()/close() so spans reach Langfuse before a short-lived process exits.
      spanProcessor: langfuseSpanProcessor,
      tags: ["local-debug"],
    }),
  ]);

  const provider = await resolveProvider();
  const agent = createBareAgent({
    apiKey: provider.apiKey,
    baseURL: provider.baseURL,
    model: provider.model,
    name: "traced-calculator",
    tools: [calculator],
    tracer,
  });
  try {
    const result = await agent.prompt("What is 1234 × 5678? Use the calculator tool.", { stream: false });
    write(`${result.result}\n\n[result: ${result.subtype}; JSONL trace: ${path}]\n`);
    return result.subtype === "success" ? 0 : 1;
  } finally {
    await tracer.close?.();
    await provider.close();
    await tracerProvider.shutdown();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  process.exitCode = await runTracingExample();
