// T1/T5/T11: assembly-time validation, clear errors, lifecycle.
import { agentTool, createBareAgent, InvalidOptionError, tool } from "@agent-lattice/core";
import { createScriptedModelClient, textTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { createMemoryMailbox, createTeam, createTeamRunner, TeamError, teamMember } from "../src/index.js";

const agent = (name = "m", tools: any[] = []) =>
  createBareAgent({ model: name, modelClient: createScriptedModelClient(), tools });
const noopTool = (name: string) =>
  tool(
    name,
    "x",
    { jsonSchema: { type: "object", properties: {} }, parse: (input: unknown) => input as object },
    () => ({
      content: "",
    }),
  );

describe("createTeam() / teamMember() assembly (T1)", () => {
  it("a team is an AgentLike and exposes its parts", () => {
    const lead = agent("lead");
    const team = createTeam({
      name: "engineering",
      lead,
      members: [teamMember({ name: "researcher", role: "executor", focus: "Research", agent: agent() })],
    });
    expect(typeof team.query).toBe("function");
    expect(typeof team.prompt).toBe("function");
    expect(team.interrupt()).toBe(false);
    expect(team.lead).toBe(lead);
    expect(team.leadMailboxId).toBe("engineering::lead");
    expect(team.mailboxIdOf("researcher")).toBe("engineering::researcher");
    expect(team.tools[0]!.description).toContain('Team member "researcher" (executor). Research.');
    expect(team.tools[0]!.kind).toBe("agent_tool");
  });

  it("rejects tool-name collisions with the lead's own tools, clearly", () => {
    expect(() =>
      createTeam({
        name: "t",
        lead: agent("lead", [noopTool("researcher")]),
        members: [teamMember({ name: "researcher", role: "executor", agent: agent() })],
      }),
    ).toThrow(/the lead already has a tool named "researcher".*Rename the member/);
    expect(() =>
      createTeam({
        name: "t",
        lead: agent("lead"),
        members: [
          teamMember({ name: "researcher", role: "executor", agent: agent("m", [noopTool("team_send")]) }),
        ],
      }),
    ).toThrow(TeamError);
  });

  it("rejects a lead that cannot take tools, a member that is the lead, duplicates and reserved names", () => {
    const hostLike = {
      query: async function* () {},
      prompt: async () => ({}) as any,
      interrupt: () => false,
    };
    expect(() => createTeam({ name: "t", lead: hostLike as any, members: [] })).toThrow(
      expect.objectContaining({ code: "team_not_tool_capable" }),
    );
    const lead = agent("lead");
    expect(() =>
      createTeam({ name: "t", lead, members: [teamMember({ name: "x", role: "executor", agent: lead })] }),
    ).toThrow(/is the lead itself/);
    expect(() =>
      createTeam({
        name: "t",
        lead: agent("lead"),
        members: [
          teamMember({ name: "x", role: "executor", agent: agent() }),
          teamMember({ name: "x", role: "executor", agent: agent() }),
        ],
      }),
    ).toThrow(/two members are named "x"/);
    expect(() => teamMember({ name: "lead", role: "executor", agent: agent() })).toThrow(/reserved/);
    expect(() => teamMember({ name: "has space", role: "executor", agent: agent() })).toThrow(
      InvalidOptionError,
    );
    expect(() => teamMember({ name: "x", role: "executor", agent: {} as any })).toThrow(
      /must be an AgentLike/,
    );
    expect(() => teamMember({ name: "x", role: "executor", agent: agent(), extra: 1 } as any)).toThrow(
      /teamMember\(\): unknown option "extra"/,
    );
  });

  it("validates runner.maxConcurrentWorkItems (positive integer, default 1) on createTeam and createTeamRunner (T5)", () => {
    for (const bad of [0, -1, 1.5, "4", Number.NaN]) {
      expect(() =>
        createTeam({
          name: "t",
          lead: agent("lead"),
          members: [],
          runner: { maxConcurrentWorkItems: bad as any },
        }),
      ).toThrow(/maxConcurrentWorkItems must be a positive integer/);
    }
    expect(() =>
      createTeam({ name: "t", lead: agent("lead"), members: [], runner: { max: 2 } as any }),
    ).toThrow(/unknown option "max"/);
    const team = createTeam({ name: "t", lead: agent("lead"), members: [] });
    expect(team.runner.maxConcurrentWorkItems).toBe(1);
    expect(createTeamRunner({ team, maxConcurrentWorkItems: 4 }).maxConcurrentWorkItems).toBe(4);
    expect(() => createTeamRunner({ team, maxConcurrentWorkItems: 0 })).toThrow(/positive integer/);
    expect(() => createTeamRunner({ team: {} as any })).toThrow(/must be a team made by createTeam/);
  });

  it("rejects unknown options, bad names and a mailbox that is not a TeamMailbox", () => {
    expect(() => createTeam({ name: "t", lead: agent("lead"), members: [], extra: true } as any)).toThrow(
      /createTeam\(\): unknown option "extra"/,
    );
    expect(() => createTeam({ name: "a::b", lead: agent("lead"), members: [] })).toThrow(/name must be/);
    expect(() =>
      createTeam({ name: "t", lead: agent("lead"), members: [], mailbox: { send() {} } as any }),
    ).toThrow(/lacks get, inbox, thread, claimNext/);
  });

  it("accepts a spec as lead (the team owns and closes it) and as member (a fresh session per work item)", async () => {
    const leadClient = createScriptedModelClient({ script: [textTurn("hello")] });
    const { createAgentFactory } = await import("@agent-lattice/core");
    const { defineAgent } = createAgentFactory();
    const team = createTeam({
      name: "t",
      lead: defineAgent({ model: "lead", modelClient: leadClient }),
      members: [
        teamMember({
          name: "worker",
          role: "executor",
          agent: defineAgent({ model: "w", modelClient: createScriptedModelClient() }),
        }),
      ],
    });
    expect((await team.prompt("hi")).result).toBe("hello");
    expect(team.memberTools.worker!.length).toBe(6);
    expect(team.tools[0]!.description).toContain("fresh session");
    await team.close();
    expect(() => team.lead.query("again")).toThrow(/closed/);
  });

  it("close(): later queries throw team_closed; the lead passed in stays open", async () => {
    const lead = createBareAgent({
      model: "lead",
      modelClient: createScriptedModelClient({ script: [textTurn("still here")] }),
    });
    const team = createTeam({ name: "t", lead, members: [], mailbox: createMemoryMailbox() });
    await team.close();
    await expect(team.prompt("x")).rejects.toMatchObject({ code: "team_closed" });
    await expect(team.drain()).rejects.toMatchObject({ code: "team_closed" });
    expect((await lead.prompt("x")).result).toBe("still here");
  });

  it("team.query() takes no runtime of its own; the lead's non-member delegation tools keep core's behaviour", async () => {
    const team = createTeam({
      name: "t",
      lead: agent("lead", [agentTool("helper", agent("h"))]),
      members: [],
    });
    expect(() => team.query("x", { runtime: {} })).not.toThrow(); // generators throw on first next()
    await expect(team.prompt("x", { runtime: {} })).rejects.toThrow(/a team hosts its own runtime/);
  });
});
