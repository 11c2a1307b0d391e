// The README's composite tracer (JSONL + LangSmith + Langfuse at once), as written in src/tracing.ts, against
// local stand-ins for LangSmith and Langfuse configured only through their standard environment variables: each
// sink receives the whole run, and the three agree on the run ids.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readContextTrace } from "agent-lattice";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOtlpReceiver } from "../../packages/tracing-langfuse/test/otlp-receiver.js";
import { startLangSmithReceiver } from "../../packages/tracing-langsmith/test/langsmith-receiver.js";
import { runTracingExample } from "../src/tracing.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-example-tracing-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the composite tracer example (JSONL + LangSmith + Langfuse)", () => {
  it("delivers the run to all three sinks, with matching run ids", async () => {
    const langsmith = await startLangSmithReceiver();
    const langfuse = await startOtlpReceiver();
    for (const key of ["DEEPSEEK_API_KEY", "ANTHROPIC_API_KEY", "AGENT_LATTICE_MODEL"])
      delete process.env[key];
    Object.assign(process.env, {
      LANGSMITH_TRACING: "true",
      LANGSMITH_ENDPOINT: langsmith.url,
      LANGSMITH_API_KEY: "ls-example-key",
      LANGSMITH_PROJECT: "examples",
      LANGFUSE_PUBLIC_KEY: "pk-lf-example",
      LANGFUSE_SECRET_KEY: "sk-lf-example",
      LANGFUSE_BASE_URL: langfuse.url,
    });
    try {
      const path = join(dir, "session.jsonl");
      const output: string[] = [];
      const code = await runTracingExample({ path, write: text => output.push(text) });
      expect(code, output.join("")).toBe(0);
      expect(output.join("")).toContain("7006652");

      const events = readContextTrace(await readFile(path, "utf8"));
      const runId = events[0]!.run_id;
      expect(events.map(event => event.type)).toContain("result");

      const runs = langsmith.list();
      expect(runs.map(run => `${run.run_type}:${run.name}`).sort()).toEqual(
        [
          "chain:traced-calculator",
          "llm:mock-claude (offline)",
          "llm:mock-claude (offline)",
          "tool:calculator",
        ].sort(),
      );
      const root = runs.find(run => run.run_type === "chain")!;
      expect(root.session_name).toBe("examples");
      expect(root.tags).toEqual(["agent-lattice", "local-debug"]);
      expect(root.extra?.metadata?.agent_lattice_run_id).toBe(runId);

      const spans = langfuse.spans;
      expect(spans).toHaveLength(4);
      const traceRoot = spans.find(span => span.parentSpanId === undefined)!;
      expect(traceRoot.attributes["langfuse.trace.name"]).toBe("traced-calculator");
      expect(traceRoot.attributes["langfuse.trace.tags"]).toEqual(["agent-lattice", "local-debug"]);
      expect(traceRoot.attributes["langfuse.observation.metadata.agent_lattice_run_id"]).toBe(runId);
    } finally {
      await langsmith.close();
      await langfuse.close();
    }
  });
});
