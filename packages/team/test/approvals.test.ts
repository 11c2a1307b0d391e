// Approvals inside team members (approvals issue): not resumable through the mailbox runtime yet, so a member that
// pauses for a person fails its work item with a report that says so, and the lead goes on.

import { tool } from "@agent-lattice/core";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { createTeam, teamMember } from "../src/index.js";
import { collect, mockAgent, teamMock } from "./helpers.js";

describe("a member that pauses for human approval", () => {
  it("fails its work item with a report naming the waiting call; the lead reads it and finishes", async () => {
    const ran: string[] = [];
    const transfer = tool(
      "transfer",
      "Send money",
      z.object({ amount: z.number() }),
      async () => {
        ran.push("transfer");
        return { content: "sent" };
      },
      { needsApproval: true },
    );
    const server = await teamMock({
      lead: [toolTurn({ name: "payments", input: { mode: "handoff", task: "pay 5" } }), textTurn("noted")],
      payments: [toolTurn({ name: "transfer", input: { amount: 5 }, id: "t_pay" })],
    });
    const team = createTeam({
      name: "finance",
      lead: mockAgent(server, "lead"),
      members: [
        teamMember({
          name: "payments",
          role: "executor",
          agent: mockAgent(server, "payments", { tools: [transfer] }),
        }),
      ],
    });
    const events = await collect(team.query("Pay 5."));
    expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "noted" });
    expect(ran).toEqual([]);
    const leadSecond = server.requests.filter(request => request.body.model === "lead")[1]!;
    const text = JSON.stringify(leadSecond.body.messages.at(-1));
    expect(text).toContain("paused for human approval of transfer (t_pay)");
  });
});
