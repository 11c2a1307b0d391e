// Spec "Nested teams" (T10) and tracing through a team invocation (T8: a tracer passed per query reaches every
// delegated agent; one team invocation is one trace tree).
import type { ContextTraceEvent } from "@agent-lattice/core";
import { defineContextTracer } from "@agent-lattice/core";
import { textTurn, toolUse, turn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { createTeam, teamMember } from "../src/index.js";
import { collect, lastUserText, mockAgent, requestsFor, teamMock } from "./helpers.js";

async function company() {
  const server = await teamMock({
    ceo: [
      turn([toolUse("engineering", { mode: "handoff", task: "Ship the notes API and its UI." })]),
      textTurn("Engineering shipped the notes API and UI."),
    ],
    head: [
      turn([
        toolUse("backend", { mode: "handoff", task: "Build POST /notes." }),
        toolUse("frontend", { mode: "handoff", task: "Build the notes form." }),
      ]),
      textTurn("Backend and frontend are done."),
    ],
    backend: [textTurn("POST /notes implemented.")],
    frontend: [textTurn("Notes form implemented.")],
  });
  const createDeepSeekAgent = (model: string, systemPrompt: string) =>
    mockAgent(server, model, { systemPrompt });
  const ceoAgent = createDeepSeekAgent("ceo", "You are the CEO agent.");
  const engineeringHeadAgent = createDeepSeekAgent("head", "You are the engineering head agent.");
  const backendAgent = createDeepSeekAgent("backend", "You are the backend executor agent.");
  const frontendAgent = createDeepSeekAgent("frontend", "You are the frontend executor agent.");
  const engineeringTeam = createTeam({
    name: "engineering",
    lead: engineeringHeadAgent,
    members: [
      teamMember({ name: "backend", role: "executor", agent: backendAgent }),
      teamMember({ name: "frontend", role: "executor", agent: frontendAgent }),
    ],
  });
  const companyTeam = createTeam({
    name: "company",
    lead: ceoAgent,
    members: [
      teamMember({
        name: "engineering",
        role: "head",
        focus: "Own engineering delivery",
        agent: engineeringTeam,
      }),
    ],
  });
  return { server, companyTeam, engineeringTeam, ceoAgent, engineeringHeadAgent };
}

describe("Nested teams (spec snippet: CEO → engineering → backend/frontend)", () => {
  it("a team is a member of another team: work flows down and reports flow back up", async () => {
    const { server, companyTeam, engineeringTeam } = await company();
    const events = await collect(companyTeam.query("Build a notes app."));
    expect(events.at(-1)).toMatchObject({
      type: "result",
      subtype: "success",
      result: "Engineering shipped the notes API and UI.",
    });

    // The inner team's own events reach the outer stream, nested as agent_message events of the engineering member.
    const nested = events.flatMap(event =>
      event.type === "agent_message" && event.agent === "engineering" ? [event.message] : [],
    );
    const inner = nested.flatMap(message =>
      message.type === "team_agent" ? [`${message.team}:${message.subtype}:${message.agent}`] : [],
    );
    expect(inner).toEqual([
      "engineering:started:backend",
      "engineering:finished:backend",
      "engineering:started:frontend",
      "engineering:finished:frontend",
    ]);
    const outer = events.flatMap(event =>
      event.type === "team_agent" ? [`${event.team}:${event.subtype}:${event.agent}`] : [],
    );
    expect(outer).toEqual(["company:started:engineering", "company:finished:engineering"]);

    // Reports: executors → head, head's final answer → CEO.
    expect(lastUserText(requestsFor(server, "head")[1]!)).toMatch(
      /POST \/notes implemented[\s\S]*Notes form implemented/,
    );
    expect(lastUserText(requestsFor(server, "ceo")[1]!)).toContain("Backend and frontend are done.");

    // Each team has its own mailbox, with ids of its own namespace.
    expect((await companyTeam.mailbox.inbox("company::engineering", { status: "all" }))[0]!.status).toBe(
      "completed",
    );
    expect((await engineeringTeam.mailbox.inbox("engineering::backend", { status: "all" }))[0]!.status).toBe(
      "completed",
    );
    // A nested team cannot take the mailbox tools: it gets work, not tools.
    expect(companyTeam.memberTools.engineering).toEqual([]);
    expect(engineeringTeam.memberTools.backend!.map(tool => tool.name)).toEqual([
      "team_send",
      "team_inbox",
      "team_read",
      "team_reply",
      "team_followup",
      "team_status",
    ]);
  });

  it("interrupt() on a team delegates to its lead", async () => {
    const { companyTeam, ceoAgent } = await company();
    expect(companyTeam.interrupt()).toBe(false);
    const run = companyTeam.query("Build a notes app.");
    await run.next(); // the CEO's query has started
    expect(companyTeam.interrupt()).toBe(true);
    expect(ceoAgent.interrupt()).toBe(false); // already interrupted through the team
    let last: unknown;
    for await (const event of run) last = event;
    expect(last).toMatchObject({ type: "result", subtype: "interrupted" });
  });

  it("a tracer passed per query reaches every delegated agent; one team invocation is one trace tree", async () => {
    const { companyTeam } = await company();
    const trace: ContextTraceEvent[] = [];
    const tracer = defineContextTracer({ onEvent: event => void trace.push(event) });
    await companyTeam.prompt("Build a notes app.", { tracer });

    const runs = new Map<string, { source: string; parent?: string }>();
    for (const event of trace) {
      if (event.type === "run_start")
        runs.set(event.run_id, { source: event.source, parent: event.parent_run_id });
    }
    const bySource = (source: string) => [...runs.entries()].filter(([, run]) => run.source === source);
    const [companyRun] = bySource("company");
    expect(companyRun![1].parent).toBeUndefined();
    const roots = [...runs.values()].filter(run => run.parent === undefined);
    expect(roots).toHaveLength(1);
    // Every run reaches the company run through its parents.
    for (const [id] of runs) {
      let cursor: string | undefined = id;
      let hops = 0;
      while (cursor && runs.get(cursor)?.parent && hops++ < 10) cursor = runs.get(cursor)!.parent;
      expect(cursor).toBe(companyRun![0]);
    }
    // The agents' runs (ceo, head, backend, frontend — sources are "agent" for unnamed agents) and both teams.
    expect(bySource("engineering")).toHaveLength(1);
    expect(bySource("agent")).toHaveLength(4);
    // Team events are in the trace, typed.
    const teamEvents = trace.filter(event => event.type === "team_message" || event.type === "team_agent");
    expect(teamEvents.some(event => event.type === "team_agent" && event.data.agent === "backend")).toBe(
      true,
    );
    expect(trace.filter(event => event.type === "result" && event.source === "company")).toHaveLength(1);
  });
});
