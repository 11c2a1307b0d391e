// Team runs in the run tree (issue 17): @agent-lattice/team's events (team_message, team_agent) become one member
// node per work item, under the lead's handoff (or ask) call, with the member's runs under it; status, duration,
// tokens; a failed work item is an error with its code; agents are named by the team and filterable.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readContextTrace, type Usage } from "@agent-lattice/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordTeamTrace, TEAM_CALLS, TEAM_FINDINGS, TEAM_USAGE } from "../scripts/team-trace.mjs";
import { badgeOf, labelOf, searchTextOf } from "../src/model/describe.js";
import type { TraceEvent } from "../src/model/trace-event.js";
import {
  buildTraceModel,
  durationOf,
  type MemberNode,
  type RunNode,
  type TraceModel,
  type TreeNode,
} from "../src/model/trace-model.js";
import { visibleRows } from "../src/model/visible-rows.js";
import { runEvents } from "./support/events.js";

const shape = (node: TreeNode): unknown => {
  const name =
    node.kind === "run"
      ? `${badgeOf(node)} ${node.agent}`
      : node.kind === "turn"
        ? `turn ${node.turn}`
        : node.kind === "tool"
          ? `tool ${node.name}`
          : node.kind === "member"
            ? `${node.mode} ${node.member} ${node.status}`
            : `event ${node.type}`;
  return node.children.length ? { [name]: node.children.map(shape) } : name;
};
const members = (model: TraceModel) =>
  [...model.nodes.values()].filter((node): node is MemberNode => node.kind === "member");
const member = (model: TraceModel, name: string) => members(model).find(node => node.member === name)!;

describe("a real team run: lead, researcher, reviewer and a nested docs team whose writer fails (R2)", () => {
  let dir: string;
  let model: TraceModel;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "al-viewer-team-"));
    const path = join(dir, "team.jsonl");
    await recordTeamTrace(path);
    model = buildTraceModel(readContextTrace(await readFile(path, "utf8")) as TraceEvent[]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("nests each member under the lead's call that handed the work off, and the member's run under it", () => {
    expect(model.roots.map(shape)).toEqual([
      {
        "team engineering": [
          {
            "lead engineering lead": [
              {
                "turn 1": [
                  {
                    "tool researcher": [
                      {
                        "handoff researcher completed": [
                          { "agent researcher": [{ "turn 1": ["tool grep"] }, "turn 2"] },
                        ],
                      },
                    ],
                  },
                  {
                    "tool docs": [
                      {
                        "handoff docs completed": [
                          {
                            "team docs": [
                              {
                                "lead docs lead": [
                                  {
                                    "turn 1": [
                                      {
                                        "tool writer": [
                                          {
                                            "handoff writer failed": [
                                              { "agent writer": ["turn 1", "event error"] },
                                            ],
                                          },
                                        ],
                                      },
                                    ],
                                  },
                                  "event user_message",
                                  "turn 2",
                                ],
                              },
                            ],
                          },
                        ],
                      },
                    ],
                  },
                ],
              },
              "event user_message",
              {
                "turn 2": [
                  { "tool reviewer": [{ "ask reviewer completed": [{ "agent reviewer": ["turn 1"] }] }] },
                ],
              },
              "turn 3",
            ],
          },
        ],
      },
    ]);
    // Every team event went into a member node (sent, claimed, the terminal status, the reply, team_agent): none
    // is left as a row, so no team event type is offered as a generic type.
    expect(model.eventTypes).toEqual(["user_message"]);
    const research = member(model, "researcher");
    expect(research.parent).toMatchObject({ kind: "tool", toolUseId: TEAM_CALLS.research });
    expect(
      research.events.map(event => `${event.type}:${(event.data as { subtype: string }).subtype}`),
    ).toEqual([
      "team_message:sent",
      "team_message:claimed",
      "team_agent:started",
      "team_message:completed",
      "team_message:sent", // the reply
      "team_agent:finished",
    ]);
  });

  it("shows each member's status, tokens and duration; the failed writer is an error with its code", () => {
    const research = member(model, "researcher");
    expect(research).toMatchObject({
      team: "engineering",
      mailbox: "engineering::researcher",
      mode: "handoff",
    });
    expect(research.error).toBeUndefined();
    expect(research.attempts).toBe(1);
    expect(research.usage).toEqual({
      input_tokens: TEAM_USAGE.researcher1.input_tokens + TEAM_USAGE.researcher2.input_tokens,
      output_tokens: TEAM_USAGE.researcher1.output_tokens + TEAM_USAGE.researcher2.output_tokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    expect(labelOf(research)).toBe(
      "researcher · completed — Find the existing note routes and their storage.",
    );
    // Its time is the member's work: from claim to the terminal status, which spans the member's run.
    const run = research.children[0] as RunNode;
    expect(research.start).toBeLessThanOrEqual(run.start);
    expect(research.end).toBeGreaterThanOrEqual(run.end!);
    expect(durationOf(research, model.end)).toBe(research.end! - research.start);
    expect(searchTextOf(research)).toContain(TEAM_FINDINGS.toLowerCase()); // the outcome is searchable

    const writer = member(model, "writer");
    expect(writer).toMatchObject({ team: "docs", status: "failed", mode: "handoff" });
    expect(writer.error).toEqual({
      name: "handoff failed",
      code: "overloaded_error",
      message:
        "The model provider answered 529 (overloaded_error): Overloaded. The provider failed on its side; try again later",
    });
    // The writer's model call failed: its turn is flagged too (the error event names the turn).
    const writerRun = writer.children[0] as RunNode;
    expect(writerRun.error?.code).toBe("overloaded_error");
    expect(writerRun.turns.get(1)?.error?.status).toBe(529);

    expect(member(model, "reviewer")).toMatchObject({ mode: "ask", status: "completed" });
    expect(member(model, "reviewer").usage?.output_tokens).toBe(TEAM_USAGE.reviewer1.output_tokens);
  });

  it("names agents as the team does, and filters by them", () => {
    expect(model.sources).toEqual([
      "docs",
      "docs lead",
      "engineering",
      "engineering lead",
      "researcher",
      "reviewer",
      "writer",
    ]);
    const { rows, matched } = visibleRows(model, new Set(), { source: "researcher" });
    expect([...matched!].map(node => node.kind)).toEqual(["member", "run", "turn", "tool", "turn"]);
    // Shown with its ancestors for context: team → lead → turn → handoff call.
    expect(rows.slice(0, 4).map(node => node.kind)).toEqual(["run", "run", "turn", "tool"]);
    const failed = visibleRows(model, new Set(), { type: "member", text: "overloaded_error" }).matched!;
    expect([...failed].map(node => (node as MemberNode).member)).toEqual(["writer"]);
  });

  it("rolls the members' tokens up into the lead's and the team's rows (issue 26)", () => {
    const sum = (...usages: Usage[]) => {
      const total = {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      };
      for (const usage of usages)
        for (const key of Object.keys(total) as Array<keyof Usage>) total[key] += usage[key];
      return total;
    };
    const run = (agent: string) =>
      [...model.nodes.values()].find((node): node is RunNode => node.kind === "run" && node.agent === agent)!;
    const u = TEAM_USAGE;
    const docs = sum(u.docsLead1, u.docsLead2); // the writer's only call failed: no tokens
    expect(run("docs lead").totalUsage).toEqual(docs);
    expect(run("docs").totalUsage).toEqual(docs);
    const everyone = sum(u.lead1, u.lead2, u.lead3, u.researcher1, u.researcher2, u.reviewer1, docs);
    expect(run("engineering lead").usage).toEqual(sum(u.lead1, u.lead2, u.lead3)); // its own turns, as before
    expect(run("engineering lead").totalUsage).toEqual(everyone);
    expect(run("engineering").totalUsage).toEqual(everyone);
    // Nothing is counted twice: the top row equals the trace's total of all turns.
    const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } =
      model.totals;
    expect(everyone).toEqual({
      input_tokens,
      output_tokens,
      cache_creation_input_tokens,
      cache_read_input_tokens,
    });
  });

  it("the writer's failure marks its work item, its run, its turn and an error row, and counts once", () => {
    const writer = member(model, "writer");
    const writerRun = writer.children[0] as RunNode;
    expect(writer.error).toBeDefined();
    expect(writerRun.error).toBeDefined();
    expect(writerRun.turns.get(1)?.error).toBeDefined();
    expect(writerRun.children.some(child => child.kind === "event" && child.error)).toBe(true);
    expect(model.totals.errors).toBe(1);
  });
});

describe("team events in other shapes", () => {
  const tool = (id: string) => ({ type: "tool_use", id, name: "researcher", input: { mode: "handoff" } });
  const delegation = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
    id,
    kind: "delegation",
    from: "eng::lead",
    to: "eng::researcher",
    content: "look around",
    status,
    metadata: { mode: "handoff", tool: "researcher", tool_use_id: "toolu_1" },
    ...extra,
  });
  const agentEvent = (subtype: string, extra: Record<string, unknown> = {}) => ({
    subtype,
    team: "eng",
    agent: "researcher",
    mailbox: "eng::researcher",
    message_id: "m1",
    work_item_id: "w1",
    thread_id: "t1",
    ...extra,
  });

  it("a work item released by a stopping worker and finished by another: one node, two runs, tokens summed", () => {
    const team = runEvents("t", "eng");
    const lead = runEvents("l", "agent", { parent: "t" });
    lead.start();
    lead.turn(1, [tool("toolu_1")]);
    lead.toolUse(1, "toolu_1", "researcher");
    team.emit("team_message", { subtype: "sent", team: "eng", message: delegation("m1", "pending") }, 50);
    team.emit("team_message", { subtype: "claimed", team: "eng", message: delegation("m1", "processing") });
    team.emit("team_agent", agentEvent("started"));
    const first = runEvents("r1", "agent", {
      parent: "t",
      parentToolUseId: "toolu_1",
      startMs: Date.parse("2026-01-01T00:00:00.085Z"),
    });
    first.start();
    team.emit("team_message", { subtype: "released", team: "eng", message: delegation("m1", "pending") });
    team.emit(
      "team_agent",
      agentEvent("finished", { status: "cancelled", usage: { input_tokens: 5, output_tokens: 1 } }),
    );
    team.emit(
      "team_message",
      { subtype: "claimed", team: "eng", message: delegation("m1", "processing") },
      100,
    );
    team.emit("team_agent", agentEvent("started"));
    const second = runEvents("r2", "agent", {
      parent: "t",
      parentToolUseId: "toolu_1",
      startMs: Date.parse("2026-01-01T00:00:00.250Z"),
    });
    second.start();
    second.turn(1, [{ type: "text", text: "found" }], second.usage(7, 3));
    second.result();
    team.emit(
      "team_message",
      {
        subtype: "completed",
        team: "eng",
        message: delegation("m1", "completed", { outcome: { content: "found" } }),
      },
      100,
    );
    team.emit(
      "team_agent",
      agentEvent("finished", { status: "completed", usage: { input_tokens: 7, output_tokens: 3 } }),
    );
    const model = buildTraceModel([...team.events, ...lead.events, ...first.events, ...second.events]);
    const node = member(model, "researcher");
    expect(node.parent).toMatchObject({ kind: "tool", toolUseId: "toolu_1" });
    expect(node.children.map(child => (child as RunNode).runId)).toEqual(["r1", "r2"]);
    expect(node).toMatchObject({ status: "completed", attempts: 2, error: undefined });
    expect(node.usage).toMatchObject({ input_tokens: 12, output_tokens: 4 });
    expect(node.end).toBeDefined();
    // The lead's row counts the reported tokens of both attempts, though only the second's turns are in the files.
    expect(model.roots[0]!.totalUsage).toMatchObject({ input_tokens: 22, output_tokens: 9 });
  });

  it("a pending work item is open; without the lead's run in the files it sits under the team run", () => {
    const team = runEvents("t", "eng");
    team.emit("team_message", { subtype: "sent", team: "eng", message: delegation("m1", "pending") });
    const model = buildTraceModel(team.events);
    const node = member(model, "researcher");
    expect(node.parent).toBe(model.roots[0]);
    expect(node).toMatchObject({ status: "pending", end: undefined, attempts: 0 });
    expect(labelOf(node)).toBe("researcher · pending — look around");
  });

  it("team events that belong to no delegation, or are malformed, stay rows of the team run", () => {
    const team = runEvents("t", "eng");
    team.emit("team_message", {
      subtype: "sent",
      team: "eng",
      message: { id: "n1", kind: "message", from: "eng::researcher", to: "eng::reviewer", content: "fyi" },
    });
    team.emit("team_message", { subtype: "sent", team: "eng", message: "not a message" });
    team.emit("team_agent", { subtype: "started", agent: "ghost", message_id: "nowhere" });
    team.emit("team_agent", null);
    const model = buildTraceModel(team.events);
    expect(model.roots.map(shape)).toEqual([
      { "team eng": ["event team_message", "event team_message", "event team_agent", "event team_agent"] },
    ]);
    expect(model.eventTypes).toEqual(["team_agent", "team_message"]);
  });
});
