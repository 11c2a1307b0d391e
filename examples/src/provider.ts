import { startMockAnthropicServer, textTurn, toolTurn } from "agent-lattice/testing";

export interface Provider {
  label: string;
  apiKey: string;
  baseURL: string | undefined;
  model: string;
  close(): Promise<void>;
}

/**
 * A real provider when a key is in the environment, otherwise the embedded mock server, which plays a
 * model that calls the calculator and then reads the tool result it was sent.
 */
export async function resolveProvider(env: NodeJS.ProcessEnv = process.env): Promise<Provider> {
  const noop = async () => {};
  if (env.DEEPSEEK_API_KEY) {
    return {
      label: "DeepSeek (Anthropic-compatible endpoint)",
      apiKey: env.DEEPSEEK_API_KEY,
      baseURL: "https://api.deepseek.com/anthropic",
      model: env.AGENT_LATTICE_MODEL ?? "deepseek-v4-flash",
      close: noop,
    };
  }
  if (env.ANTHROPIC_API_KEY) {
    return {
      label: "Anthropic",
      apiKey: env.ANTHROPIC_API_KEY,
      baseURL: env.ANTHROPIC_BASE_URL,
      model: env.AGENT_LATTICE_MODEL ?? "claude-sonnet-4-6",
      close: noop,
    };
  }
  const server = await startMockAnthropicServer({
    respond: request => {
      const last = request.body.messages.at(-1);
      const toolResult = Array.isArray(last?.content)
        ? last.content.find((b: { type: string }) => b.type === "tool_result")
        : undefined;
      const chunkDelayMs = 12;
      if (!toolResult) {
        return toolTurn(
          { name: "calculator", input: { a: 1234, op: "*", b: 5678 } },
          { text: "Let me work that out with the calculator.", chunkDelayMs, model: "mock-claude (offline)" },
        );
      }
      return textTurn(`1234 × 5678 = ${toolResult.content}, computed by the calculator tool.`, {
        chunkDelayMs,
        model: "mock-claude (offline)",
      });
    },
  });
  return {
    label: `offline mock server at ${server.url} (set DEEPSEEK_API_KEY or ANTHROPIC_API_KEY to use a real model)`,
    apiKey: "offline-demo-key",
    baseURL: server.url,
    model: env.AGENT_LATTICE_MODEL ?? "mock-claude",
    close: () => server.close(),
  };
}
