/**
 * Streaming render: print the model's text as it arrives. `agent.query()` yields `stream_event` messages while the
 * model is still responding; the host writes each text delta straight to the terminal, then the result.
 *
 *   pnpm --filter @agent-lattice/examples streaming-render   offline, against the embedded mock server
 *   DEEPSEEK_API_KEY=… / ANTHROPIC_API_KEY=…                 against a real provider
 */
import { pathToFileURL } from "node:url";
import { createBareAgent } from "agent-lattice";
import { textTurn } from "agent-lattice/testing";
import { resolveTeamProvider } from "./team-provider.js";

const PROMPT = "In two sentences: why stream a model's answer instead of waiting for all of it?";

export async function runStreamingRenderExample(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const provider = await resolveTeamProvider(
    () =>
      textTurn(
        "Streaming shows the first words within a fraction of a second, so people see progress at once. " +
          "It also lets the host stop early when the answer is going the wrong way.",
        { chunkDelayMs: 15 },
      ),
    env,
  );
  write(`AgentLattice streaming example — provider: ${provider.label}\n\n> ${PROMPT}\n\n`);
  const agent = createBareAgent({
    apiKey: provider.apiKey,
    baseURL: provider.baseURL,
    model: provider.model,
    systemPrompt: "You are the explainer. Answer briefly.",
  });
  let deltas = 0;
  let exitCode = 1;
  try {
    for await (const message of agent.query(PROMPT)) {
      if (message.type === "stream_event") {
        const { event } = message;
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
          deltas += 1;
          write(event.delta.text); // rendered as it arrives, not when the turn is complete
        }
      } else if (message.type === "result") {
        write(`\n\n[result: ${message.subtype}] ${deltas} text deltas rendered as they arrived\n`);
        if (message.is_error) write(`[error] ${message.result}\n`); // why it failed
        exitCode = message.subtype === "success" ? 0 : 1;
      }
    }
  } finally {
    await provider.close();
  }
  return exitCode;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runStreamingRenderExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
