// The mock provider for bench/teams.mjs, in its own process: the lead fans out to MEMBERS members in one turn, each
// member answers in one turn, then the lead answers.
import { startMockAnthropicServer, textTurn, toolUse, turn } from "@agent-lattice/testing";

const members = Number(process.env.MEMBERS ?? 10);
const server = await startMockAnthropicServer({
  respond: request => {
    if (request.body.model !== "lead")
      return textTurn(`Report from ${request.body.model}: ${"finding ".repeat(20)}`);
    // Fan out when the newest message is the round's prompt; answer once the tool results / reports are in.
    // (The lead is one session across rounds, so earlier rounds are in its history.)
    const last = request.body.messages.at(-1);
    const text =
      typeof last.content === "string" ? last.content : last.content.map(block => block.text ?? "").join("");
    if (!text.startsWith("Investigate all ten areas.")) return textTurn("Summary of every member's report.");
    return turn(
      Array.from({ length: members }, (_, i) =>
        toolUse(`m${i}`, { mode: "handoff", task: `Investigate area ${i}.` }),
      ),
    );
  },
});
process.send?.({ url: server.url });
process.on("disconnect", () => server.close().then(() => process.exit(0)));
