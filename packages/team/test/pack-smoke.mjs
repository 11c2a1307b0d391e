// Install check 3 (U2), run by packaging/test/install-alone.test.ts: this package installed from the packed
// tarballs beside @agent-lattice/core (and the test kit, for its mock server) — no workspace, no umbrella. A lead
// hands a task to a member through the in-memory mailbox; every agent talks real HTTP/SSE to the mock server,
// which plays each one by its system prompt.
import assert from "node:assert/strict";
import { createBareAgent } from "@agent-lattice/core";
import { createMemoryMailbox, createTeam, teamMember } from "@agent-lattice/team";
import { startMockAnthropicServer, textTurn, toolUse, turn } from "@agent-lattice/testing";

const server = await startMockAnthropicServer({
  respond: request => {
    const system = JSON.stringify(request.body.system ?? "");
    const heardBack = request.body.messages.some(message => message.role === "assistant");
    if (system.includes("You are the lead")) {
      return heardBack
        ? textTurn("The researcher reported back. Done.")
        : turn([toolUse("researcher", { mode: "handoff", task: "Name one part of the SDK." })]);
    }
    return textTurn("One part: the agent loop.");
  },
});
const agent = role =>
  createBareAgent({
    apiKey: "smoke",
    baseURL: server.url,
    model: "smoke",
    systemPrompt: `You are the ${role}.`,
  });
const team = createTeam({
  name: "smoke",
  lead: agent("lead"),
  members: [teamMember({ name: "researcher", role: "executor", focus: "Facts", agent: agent("researcher") })],
  mailbox: createMemoryMailbox(),
});
try {
  const result = await team.prompt("Ask the researcher for one part of the SDK.");
  assert.equal(result.subtype, "success", JSON.stringify(result));
  assert.equal(result.result, "The researcher reported back. Done.");
  const handed = await team.mailbox.inbox(team.mailboxIdOf("researcher"), { status: "all" });
  assert.equal(handed.length, 1, JSON.stringify(handed));
  assert.equal(handed[0].status, "completed", JSON.stringify(handed[0]));
  const served = server.requests.map(request => JSON.stringify(request.body.system));
  assert.ok(
    served.some(system => system.includes("You are the researcher")),
    "the member never ran",
  );
  console.log(`smoke ok: a team ran on the memory mailbox (${server.requests.length} model requests)`);
} finally {
  await team.close();
  await server.close();
}
