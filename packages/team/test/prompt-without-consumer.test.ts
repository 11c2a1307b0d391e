// team.prompt() (T8: "team.prompt() returns the final result") has no consumer for the run's stream: its team events
// and the members' nested messages are traced but never delivered, while team.query() streams the same run.
import type { ContextTraceEvent, SDKMessage } from "@agent-lattice/core";
import { defineContextTracer } from "@agent-lattice/core";
import { EventChannel } from "@agent-lattice/core/internal";
import { textTurn, toolUse, turn } from "@agent-lattice/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTeam, teamMember } from "../src/index.js";
import { collect, mockAgent, teamMock } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

async function fanOut() {
  const server = await teamMock({
    lead: [
      turn([
        toolUse("a", { mode: "handoff", task: "Look at area A." }),
        toolUse("b", { mode: "handoff", task: "Look at area B." }),
      ]),
      textTurn("Both areas are fine."),
    ],
    a: [textTurn("Area A is fine.")],
    b: [textTurn("Area B is fine.")],
  });
  return createTeam({
    name: "crew",
    lead: mockAgent(server, "lead"),
    members: ["a", "b"].map(name => teamMember({ name, role: "executor", agent: mockAgent(server, name) })),
    runner: { maxConcurrentWorkItems: 2 },
  });
}

/** The team events of a trace, as subtype:kind / subtype:agent labels in order. */
function teamEvents(trace: ContextTraceEvent[]): string[] {
  return trace.flatMap(event => {
    const data = (event as { data?: any }).data;
    if (event.type === "team_message") return [`${data.subtype}:${data.message.kind}`];
    if (event.type === "team_agent") return [`${data.subtype}:${data.agent}`];
    return [];
  });
}

describe("team.prompt() without a consumer", () => {
  it("delivers no event through a channel, traces every team event, and returns query()'s result", async () => {
    const push = vi.spyOn(EventChannel.prototype, "push");
    const promptTrace: ContextTraceEvent[] = [];
    const result = await (await fanOut()).prompt("Check both areas.", {
      tracer: defineContextTracer({ onEvent: event => void promptTrace.push(event) }),
    });
    expect(push).not.toHaveBeenCalled();
    push.mockClear();

    const queryTrace: ContextTraceEvent[] = [];
    const streamed: SDKMessage[] = await collect(
      (await fanOut()).query("Check both areas.", {
        tracer: defineContextTracer({ onEvent: event => void queryTrace.push(event) }),
      }),
    );
    expect(push).toHaveBeenCalled();
    const final = streamed.at(-1);
    expect(result).toMatchObject({ type: "result", subtype: "success", result: "Both areas are fine." });
    expect(final).toMatchObject({ type: "result", subtype: "success", result: result.result });
    expect(result.usage).toEqual((final as typeof result).usage);
    // The same team events, in the same order, whether or not anybody streamed them.
    expect(teamEvents(promptTrace)).toEqual(teamEvents(queryTrace));
    expect(teamEvents(promptTrace)).toContain("completed:delegation");
    expect(
      streamed.filter(message => message.type === "team_message" || message.type === "team_agent"),
    ).toHaveLength(teamEvents(queryTrace).length);
  });
});
