// R5, teams: a team query is one Langfuse trace — the team's root chain observation (trace name, session, tags),
// the lead's chain beneath it and the chains of the two members it handed work to beneath the team's root, each
// with its generations; team events as event observations under the team's run.
import { createBareAgent } from "@agent-lattice/core";
import { createTeam, teamMember } from "@agent-lattice/team";
import { startMockAnthropicServer, textTurn, toolUse, turn } from "@agent-lattice/testing";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { setLangfuseTracerProvider } from "@langfuse/tracing";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it } from "vitest";
import { createLangfuseContextTracer } from "../src/index.js";
import { onCleanup, receiver } from "./helpers.js";

async function crew() {
  const scripts: Record<string, ReturnType<typeof textTurn>[]> = {
    lead: [
      turn([
        toolUse("backend", { mode: "handoff", task: "Build POST /notes." }),
        toolUse("frontend", { mode: "handoff", task: "Build the notes form." }),
      ]),
      textTurn("Backend and frontend are done."),
    ],
    backend: [textTurn("POST /notes implemented.", { usage: { input_tokens: 50, output_tokens: 6 } })],
    frontend: [textTurn("Notes form implemented.")],
  };
  const model = await startMockAnthropicServer({
    respond: request => {
      const next = scripts[String(request.body.model)]?.shift();
      if (!next) throw new Error(`no reply left for ${String(request.body.model)}`);
      return next;
    },
  });
  onCleanup(() => model.close());
  const agent = (name: string) => createBareAgent({ apiKey: "k", baseURL: model.url, model: name, name });
  return createTeam({
    name: "crew",
    lead: agent("lead"),
    members: [
      teamMember({ name: "backend", role: "executor", agent: agent("backend") }),
      teamMember({ name: "frontend", role: "executor", agent: agent("frontend") }),
    ],
  });
}

describe("a two-member team query in Langfuse (R5)", () => {
  it("is one trace: the team's root, the lead and both members nested beneath it", async () => {
    const otlp = await receiver();
    const spanProcessor = new LangfuseSpanProcessor({ baseUrl: otlp.url, publicKey: "pk", secretKey: "sk" });
    const provider = new NodeTracerProvider({ spanProcessors: [spanProcessor] });
    setLangfuseTracerProvider(provider);
    onCleanup(async () => {
      setLangfuseTracerProvider(null);
      await provider.shutdown();
    });
    const team = await crew();
    const tracer = createLangfuseContextTracer({ spanProcessor, tags: ["teams"] });
    const result = await team.prompt("Build a notes app.", { tracer });
    await tracer.close!();
    expect(result).toMatchObject({ subtype: "success", result: "Backend and frontend are done." });

    const spans = otlp.spans;
    const type = (span: (typeof spans)[number]) => span.attributes["langfuse.observation.type"];
    const roots = spans.filter(span => span.parentSpanId === undefined);
    expect(roots.map(span => span.name)).toEqual(["crew"]);
    const root = roots[0]!;
    expect(new Set(spans.map(span => span.traceId))).toEqual(new Set([root.traceId]));
    expect(root.attributes).toMatchObject({
      "langfuse.trace.name": "crew",
      "langfuse.trace.tags": ["agent-lattice", "teams"],
    });
    const chain = (name: string) => spans.find(span => span.name === name && type(span) === "chain")!;
    for (const name of ["lead", "backend", "frontend"])
      expect(chain(name).parentSpanId, name).toBe(root.spanId);
    const under = (parent: string) =>
      spans
        .filter(span => span.parentSpanId === chain(parent).spanId && type(span) !== "event")
        .map(span => `${type(span)}:${span.name}`)
        .sort();
    expect(under("lead")).toEqual(["generation:lead", "generation:lead", "tool:backend", "tool:frontend"]);
    // The members' reports, admitted into the lead's conversation by the team runtime, are an event on the lead.
    const admitted = spans.find(
      span => span.parentSpanId === chain("lead").spanId && span.name === "user_message",
    )!;
    expect(JSON.parse(String(admitted.attributes["langfuse.observation.input"]))).toMatchObject({
      origin: "runtime",
    });
    expect(under("backend")).toEqual(["generation:backend"]);
    expect(under("frontend")).toEqual(["generation:frontend"]);
    const sessions = ["lead", "backend", "frontend"].map(
      name => chain(name).attributes["langfuse.observation.metadata.agent_session_id"],
    );
    expect(new Set(sessions).size).toBe(3);
    const teamEvents = spans.filter(span => span.parentSpanId === root.spanId && type(span) === "event");
    expect(new Set(teamEvents.map(span => span.name))).toEqual(new Set(["team_message", "team_agent"]));
  });
});
