// R4, teams: a team query is one LangSmith trace — the team's root chain run, the lead's run beneath it, and the
// runs of the two members it handed work to beneath the team's root (a handoff outlives the lead's tool call),
// each member keeping its own SDK session as agent_session_id; team events recorded on the team's run.
import { createBareAgent } from "@agent-lattice/core";
import { createTeam, teamMember } from "@agent-lattice/team";
import { startMockAnthropicServer, textTurn, toolUse, turn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { createLangSmithContextTracer } from "../src/index.js";
import { receiver } from "./helpers.js";

async function crew() {
  const scripts: Record<string, ReturnType<typeof textTurn>[]> = {
    lead: [
      turn([
        toolUse("backend", { mode: "handoff", task: "Build POST /notes." }),
        toolUse("frontend", { mode: "handoff", task: "Build the notes form." }),
      ]),
      textTurn("Backend and frontend are done.", { usage: { input_tokens: 300, output_tokens: 12 } }),
    ],
    backend: [textTurn("POST /notes implemented.", { usage: { input_tokens: 50, output_tokens: 6 } })],
    frontend: [textTurn("Notes form implemented.", { usage: { input_tokens: 60, output_tokens: 7 } })],
  };
  const model = await startMockAnthropicServer({
    respond: request => {
      const next = scripts[String(request.body.model)]?.shift();
      if (!next) throw new Error(`no reply left for ${String(request.body.model)}`);
      return next;
    },
  });
  const agent = (name: string) => createBareAgent({ apiKey: "k", baseURL: model.url, model: name, name });
  const team = createTeam({
    name: "crew",
    lead: agent("lead"),
    members: [
      teamMember({ name: "backend", role: "executor", agent: agent("backend") }),
      teamMember({ name: "frontend", role: "executor", agent: agent("frontend") }),
    ],
  });
  return { team, model };
}

describe("a two-member team query in LangSmith (R4)", () => {
  it("is one trace: the team's root, the lead and both members beneath it", async () => {
    const ls = await receiver();
    const { team, model } = await crew();
    const tracer = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k", projectName: "teams" });
    try {
      const result = await team.prompt("Build a notes app.", { tracer });
      await tracer.close!();
      expect(result).toMatchObject({ subtype: "success", result: "Backend and frontend are done." });
    } finally {
      await model.close();
    }
    const runs = ls.list();
    const chains = runs.filter(run => run.run_type === "chain");
    const roots = runs.filter(run => !run.parent_run_id);
    expect(roots.map(run => run.name)).toEqual(["crew"]);
    const root = roots[0]!;
    expect(new Set(runs.map(run => run.trace_id))).toEqual(new Set([root.id]));
    expect(root.outputs).toMatchObject({ subtype: "success", result: "Backend and frontend are done." });

    const chain = (name: string) => chains.find(run => run.name === name)!;
    for (const name of ["lead", "backend", "frontend"]) expect(chain(name).parent_run_id, name).toBe(root.id);
    // The lead's turns and its two handoff calls sit under the lead; each member's turn under that member.
    expect(
      runs
        .filter(run => run.parent_run_id === chain("lead").id)
        .map(run => `${run.run_type}:${run.name}`)
        .sort(),
    ).toEqual(["llm:lead", "llm:lead", "tool:backend", "tool:frontend"]);
    expect(runs.find(run => run.parent_run_id === chain("backend").id)).toMatchObject({
      run_type: "llm",
      outputs: { usage_metadata: { input_tokens: 50, output_tokens: 6, total_tokens: 56 } },
    });
    expect(runs.find(run => run.parent_run_id === chain("frontend").id)?.run_type).toBe("llm");
    for (const run of runs) expect(run.end_time, `${run.name} ended`).toBeDefined();

    // One thread; each agent its own session (the team's session is its lead's).
    expect(new Set(runs.map(run => run.extra?.metadata?.session_id)).size).toBe(1);
    const sessions = ["lead", "backend", "frontend"].map(
      name => chain(name).extra?.metadata?.agent_session_id,
    );
    expect(new Set(sessions).size).toBe(3);
    // Team events are on the team's run.
    expect(root.events?.map(event => event.name)).toEqual(
      expect.arrayContaining(["team_message", "team_agent"]),
    );
  });
});

describe("nested teams in LangSmith (R4)", () => {
  it("a team that is a member of another team nests under it: one trace from the top team down", async () => {
    const ls = await receiver();
    const scripts: Record<string, ReturnType<typeof textTurn>[]> = {
      ceo: [
        turn([toolUse("engineering", { mode: "handoff", task: "Ship the notes app." })]),
        textTurn("Engineering shipped it."),
      ],
      head: [
        turn([toolUse("backend", { mode: "handoff", task: "Build POST /notes." })]),
        textTurn("Backend is done."),
      ],
      backend: [textTurn("POST /notes implemented.")],
    };
    const model = await startMockAnthropicServer({
      respond: request => scripts[String(request.body.model)]!.shift()!,
    });
    const agent = (name: string) => createBareAgent({ apiKey: "k", baseURL: model.url, model: name, name });
    const engineering = createTeam({
      name: "engineering",
      lead: agent("head"),
      members: [teamMember({ name: "backend", role: "executor", agent: agent("backend") })],
    });
    const company = createTeam({
      name: "company",
      lead: agent("ceo"),
      members: [teamMember({ name: "engineering", role: "head", agent: engineering })],
    });
    const tracer = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k" });
    try {
      expect((await company.prompt("Build a notes app.", { tracer })).subtype).toBe("success");
      await tracer.close!();
    } finally {
      await model.close();
    }
    const runs = ls.list();
    const roots = runs.filter(run => !run.parent_run_id);
    expect(roots.map(run => run.name)).toEqual(["company"]);
    expect(new Set(runs.map(run => run.trace_id)).size).toBe(1);
    const chain = (name: string) => runs.find(run => run.run_type === "chain" && run.name === name)!;
    expect(chain("ceo").parent_run_id).toBe(chain("company").id);
    expect(chain("engineering").parent_run_id).toBe(chain("company").id);
    expect(chain("head").parent_run_id).toBe(chain("engineering").id);
    expect(chain("backend").parent_run_id).toBe(chain("engineering").id);
    for (const run of runs) expect(run.end_time, `${run.name} ended`).toBeDefined();
  });
});
