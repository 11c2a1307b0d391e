// The mock provider for bench/teams.mjs, in its own process: the lead fans out to MEMBERS members in one turn, each
// member answers in one turn, then the lead answers.
import { startMockAnthropicServer, textTurn, toolUse, turn } from "@agent-lattice/testing";

const members = Number(process.env.MEMBERS ?? 10);
const server = await startMockAnthropicServer({
  respond: request => {
    if (request.body.model !== "lead")
      return textTurn(`Report from ${request.body.model}: ${"finding ".repeat(20)}`);
    const answered = request.body.messages.some(message => message.role === "assistant");
    if (answered) return textTurn("Summary of every member's report.");
    return turn(
      Array.from({ length: members }, (_, i) =>
        toolUse(`m${i}`, { mode: "handoff", task: `Investigate area ${i}.` }),
      ),
    );
  },
});
process.send?.({ url: server.url });
process.on("disconnect", () => server.close().then(() => process.exit(0)));
