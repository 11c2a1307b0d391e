// Spec "Team Mailbox Collaboration" (T1, T2, T3, T8, T11): the snippet runs against the mock server.

import { textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { createMemoryMailbox, createTeam, teamMember } from "../src/index.js";
import { collect, lastUserText, mockAgent, requestsFor, shape, teamMock } from "./helpers.js";

describe("Team Mailbox Collaboration (spec snippet)", () => {
  it("T1/T2/T3/T8: a handoff is queued with a receipt, runs before the lead's next turn, and its report reaches the lead", async () => {
    const server = await teamMock({
      lead: [
        toolTurn({
          name: "researcher",
          input: { mode: "handoff", task: "Inspect the SDK design." },
          id: "call_1",
        }),
        textTurn("The researcher reports a small core with ports; done."),
      ],
      researcher: [textTurn("Findings: one loop, ports for model, tracer, mailbox.")],
    });
    const researcher = mockAgent(server, "researcher", {
      systemPrompt: "You research agent SDK architecture and report concise findings.",
    });
    const team = createTeam({
      name: "engineering",
      lead: mockAgent(server, "lead", {
        systemPrompt: "You lead engineering work. Delegate research tasks to researcher.",
      }),
      members: [
        teamMember({
          name: "researcher",
          role: "executor",
          focus: "Research agent architecture",
          agent: researcher,
        }),
      ],
      mailbox: createMemoryMailbox(),
    });

    const events = await collect(team.query("Ask the researcher to inspect the SDK design."));

    expect(shape(events)).toEqual([
      "system",
      "stream_event*",
      "assistant",
      "team_message/sent:delegation",
      "user",
      "team_message/claimed:delegation",
      "team_agent/started:researcher",
      "agent_message:researcher:system",
      "agent_message:researcher:stream_event*",
      "agent_message:researcher:assistant",
      "agent_message:researcher:result",
      "team_message/completed:delegation",
      "team_message/sent:reply",
      "team_agent/finished:researcher",
      "stream_event*",
      "assistant",
      "result",
    ]);

    // The receipt: exactly the spec's fields.
    const user = events.find(event => event.type === "user")!;
    const receipt = JSON.parse(String(user.type === "user" && user.message.content[0]!.content));
    expect(Object.keys(receipt).sort()).toEqual(
      ["completion_pending", "message_id", "phase", "status", "thread_id", "work_item_id"].sort(),
    );
    expect(receipt).toMatchObject({ status: "accepted", phase: "queued", completion_pending: true });

    // Mailbox states: the delegation completed, its reply delivered to (and handled for) the lead.
    const delegation = await team.mailbox.get(receipt.message_id);
    expect(delegation).toMatchObject({
      status: "completed",
      kind: "delegation",
      from: "engineering::lead",
      to: "engineering::researcher",
      workItemId: receipt.work_item_id,
      threadId: receipt.thread_id,
      attempts: 1,
      metadata: { mode: "handoff", tool: "researcher", tool_use_id: "call_1" },
    });
    const thread = await team.mailbox.thread(receipt.thread_id);
    expect(thread.map(message => [message.kind, message.status, message.to])).toEqual([
      ["delegation", "completed", "engineering::researcher"],
      ["reply", "completed", "engineering::lead"],
    ]);
    expect(thread[1]!.content).toBe("Findings: one loop, ports for model, tracer, mailbox.");
    expect((await team.mailbox.transitions(receipt.message_id)).map(t => t.to)).toEqual([
      "pending",
      "processing",
      "completed",
    ]);

    // The lead was called twice; the second request carries the receipt and then the report.
    const leadRequests = requestsFor(server, "lead");
    expect(leadRequests).toHaveLength(2);
    const told = lastUserText(leadRequests[1]!);
    expect(told).toContain('"phase":"queued"');
    expect(told).toContain('[team_report] {"member":"researcher","status":"completed"');
    expect(told).toContain("Findings: one loop, ports for model, tracer, mailbox.");
    // The member got the task as a direct ask would render it.
    expect(lastUserText(requestsFor(server, "researcher")[0]!)).toBe("Inspect the SDK design.");

    const result = events.at(-1)!;
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      result: "The researcher reports a small core with ports; done.",
    });
    // The team's usage covers the handed-off member run too.
    const memberResult = events.find(e => e.type === "agent_message" && e.message.type === "result");
    const memberUsage =
      memberResult?.type === "agent_message" && memberResult.message.type === "result"
        ? memberResult.message.usage.output_tokens
        : 0;
    expect(memberUsage).toBeGreaterThan(0);
    expect(result.type === "result" && result.usage.output_tokens).toBeGreaterThan(memberUsage);
  });

  it("T8: team.prompt() returns only the final result", async () => {
    const server = await teamMock({
      lead: [
        toolTurn({ name: "researcher", input: { mode: "ask", task: "Check X." } }),
        textTurn("X is fine."),
      ],
      researcher: [textTurn("X checked: fine.")],
    });
    const team = createTeam({
      name: "engineering",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "researcher", role: "executor", agent: mockAgent(server, "researcher") })],
    });
    const result = await team.prompt("Check X.");
    expect(result).toMatchObject({ type: "result", subtype: "success", result: "X is fine." });
    // An ask waits for the member and returns its answer as the tool result.
    expect(lastUserText(requestsFor(server, "lead")[1]!)).toBe("X checked: fine.");
  });

  it("T8: events have back-pressure: while the consumer holds an event, the member's work does not move on", async () => {
    const server = await teamMock({
      lead: [toolTurn({ name: "researcher", input: { mode: "handoff", task: "Look." } }), textTurn("done")],
      researcher: [textTurn("looked")],
    });
    const team = createTeam({
      name: "engineering",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "researcher", role: "executor", agent: mockAgent(server, "researcher") })],
    });
    let heldChecked = false;
    for await (const event of team.query("Look.")) {
      if (event.type === "team_agent" && event.subtype === "started") {
        await new Promise(resolve => setTimeout(resolve, 150));
        // Nothing was produced behind our back: the member has not even sent its first request yet.
        expect(requestsFor(server, "researcher")).toHaveLength(0);
        heldChecked = true;
      }
    }
    expect(heldChecked).toBe(true);
    expect(requestsFor(server, "researcher")).toHaveLength(1);
  });
});
