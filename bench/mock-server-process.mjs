// The mock provider for benchmarks, in its own process so that its CPU time is not charged to the client
// being measured. Plays a model that calls `echo` until it has seen TOOL_TURNS tool results, then answers.
// Tool results are counted as tool_result blocks (not as user messages), so a client that sends its prompt as
// content blocks gets the same number of turns. The parent may ask how many requests it has served ("requests").
// MODEL_DELAY_MS (default 0: an instant model) holds each answer that long before its headers, as a remote model's
// latency would.
import { startMockAnthropicServer, textTurn, toolTurn } from "@agent-lattice/testing";

const toolTurns = Number(process.env.TOOL_TURNS ?? 19);
const latency =
  Number(process.env.MODEL_DELAY_MS ?? 0) > 0 ? { delayMs: Number(process.env.MODEL_DELAY_MS) } : {};
let requests = 0;
const toolResults = messages =>
  messages
    .filter(message => message.role === "user" && Array.isArray(message.content))
    .reduce((sum, message) => sum + message.content.filter(block => block.type === "tool_result").length, 0);
const server = await startMockAnthropicServer({
  respond: request => {
    requests++;
    const seen = toolResults(request.body.messages);
    return seen < toolTurns
      ? toolTurn(
          { name: "echo", input: { text: `call ${seen} `.repeat(8) } },
          { text: "Checking the next item.", ...latency },
        )
      : textTurn("All items checked. ".repeat(10), latency);
  },
});
process.send?.({ url: server.url });
process.on("message", message => {
  if (message === "requests") process.send?.({ requests });
});
process.on("disconnect", () => server.close().then(() => process.exit(0)));
