/**
 * The main demo: an agent streams its answer to the terminal and calls a tool.
 *
 *   pnpm demo                       offline, against the embedded Anthropic-compatible mock server
 *   DEEPSEEK_API_KEY=… pnpm demo    against DeepSeek's Anthropic endpoint (model deepseek-v4-flash)
 *   ANTHROPIC_API_KEY=… pnpm demo   against Anthropic (model claude-sonnet-4-6)
 * AGENT_LATTICE_MODEL overrides the model name.
 */
import { pathToFileURL } from "node:url";
import { createBareAgent, type SDKMessage } from "agent-lattice";
import { calculator } from "./demo-tools.js";
import { type Provider, resolveProvider } from "./provider.js";

const PROMPT = "What is 1234 × 5678? Use the calculator tool, then answer in one sentence.";

export async function runDemo(
  write: (text: string) => void = text => process.stdout.write(text),
): Promise<number> {
  const provider: Provider = await resolveProvider();
  write(`AgentLattice demo — provider: ${provider.label}\n\n> ${PROMPT}\n\n`);
  const agent = createBareAgent({
    apiKey: provider.apiKey,
    baseURL: provider.baseURL,
    model: provider.model,
    systemPrompt: "You are a concise assistant. Use the calculator for arithmetic.",
    tools: [calculator],
    maxTurns: 6,
  });
  let exitCode = 1;
  try {
    for await (const message of agent.query(PROMPT)) exitCode = render(message, write) ?? exitCode;
  } finally {
    await provider.close();
  }
  return exitCode;
}

/** Renders one SDK message; returns the exit code once the result arrives. */
function render(message: SDKMessage, write: (text: string) => void): number | undefined {
  switch (message.type) {
    case "stream_event": {
      const event = message.event;
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") write(event.delta.text);
      return undefined;
    }
    case "assistant": {
      write(`\n[served by model: ${message.message.model ?? "unknown"}]\n`);
      for (const block of message.message.content) {
        if (block.type === "tool_use") write(`[tool call] ${block.name}(${JSON.stringify(block.input)})\n`);
      }
      return undefined;
    }
    case "user": {
      for (const block of message.message.content) {
        write(`[tool result${block.is_error ? " (error)" : ""}] ${String(block.content)}\n\n`);
      }
      return undefined;
    }
    case "result": {
      const { input_tokens, output_tokens } = message.usage;
      write(
        `\n[result: ${message.subtype} · ${message.num_turns} model turns · ${input_tokens} in / ${output_tokens} out tokens]\n`,
      );
      if (message.error) write(`[error] ${message.error.message}\n`);
      return message.is_error ? 1 : 0;
    }
    default:
      return undefined;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runDemo().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
