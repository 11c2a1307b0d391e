// The mock provider for benchmarks, in its own process so that its CPU time is not charged to the client
// being measured. Plays a model that calls `echo` until it has seen TOOL_TURNS tool results, then answers.
import { startMockAnthropicServer, textTurn, toolTurn } from "@agent-lattice/testing";

const toolTurns = Number(process.env.TOOL_TURNS ?? 19);
const server = await startMockAnthropicServer({
  respond: request => {
    const seen = request.body.messages.filter(m => m.role === "user" && Array.isArray(m.content)).length;
    return seen < toolTurns
      ? toolTurn(
          { name: "echo", input: { text: `call ${seen} `.repeat(8) } },
          { text: "Checking the next item." },
        )
      : textTurn("All items checked. ".repeat(10));
  },
});
process.send?.({ url: server.url });
process.on("disconnect", () => server.close().then(() => process.exit(0)));
