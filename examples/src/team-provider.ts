import { type MockScriptItem, type RecordedRequest, startMockAnthropicServer } from "agent-lattice/testing";
import type { Provider } from "./provider.js";

/** Plays one agent of a team offline: `role` is the keyword its system prompt starts with. */
export type TeamScript = (role: string, request: RecordedRequest) => MockScriptItem;

/**
 * The provider for the team examples: a real one when DEEPSEEK_API_KEY or ANTHROPIC_API_KEY is set, otherwise the
 * embedded mock server playing every agent of the team. The mock tells agents apart by their system prompts
 * ("You are the <role> …"), the way one real model plays many agents.
 */
export async function resolveTeamProvider(
  script: TeamScript,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Provider> {
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
      const system = request.body.system;
      const text = typeof system === "string" ? system : JSON.stringify(system ?? "");
      const role = /You are the ([A-Za-z-]+)/.exec(text)?.[1] ?? "unknown";
      return script(role, request);
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

/** True once the conversation holds a tool result or a team report: the agent has heard back. */
export function heardBack(request: RecordedRequest): boolean {
  return (request.body.messages as Array<{ role: string }>).some(message => message.role === "assistant");
}

/** The text of the newest user message (the task a member got, or the reports a lead got). */
export function lastUserText(request: RecordedRequest): string {
  const content = (request.body.messages as Array<{ content: unknown }>).at(-1)?.content;
  if (typeof content === "string") return content;
  return (content as Array<{ type: string; text?: string; content?: unknown }>)
    .map(block =>
      block.type === "text" ? block.text : typeof block.content === "string" ? block.content : "",
    )
    .join("\n");
}
