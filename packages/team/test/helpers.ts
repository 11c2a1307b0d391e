import type { SDKMessage } from "@agent-lattice/core";
import { createBareAgent } from "@agent-lattice/core";
import {
  type MockAnthropicServer,
  type MockScriptItem,
  type RecordedRequest,
  startMockAnthropicServer,
} from "@agent-lattice/testing";
import { afterEach } from "vitest";
import "../src/index.js";

const servers: MockAnthropicServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});

export type Reply = MockScriptItem | ((request: RecordedRequest) => MockScriptItem | Promise<MockScriptItem>);

/**
 * A mock Anthropic server whose replies are scripted per agent: every agent of a test uses its own model name, and
 * each model's requests consume that model's script in order — so agents running concurrently still get their
 * own replies, deterministically.
 */
export async function teamMock(scripts: Record<string, Reply[]>): Promise<MockAnthropicServer> {
  const queues = new Map(Object.entries(scripts).map(([model, items]) => [model, [...items]]));
  const server = await startMockAnthropicServer({
    respond: request => {
      const model = String(request.body.model);
      const next = queues.get(model)?.shift();
      if (!next) throw new Error(`no scripted reply left for model "${model}"`);
      return typeof next === "function" ? next(request) : next;
    },
  });
  servers.push(server);
  return server;
}

/** A bare agent on the mock, addressed by its model name. */
export function mockAgent(server: MockAnthropicServer, model: string, extra: Record<string, unknown> = {}) {
  return createBareAgent({ apiKey: "test-key", baseURL: server.url, model, maxRetries: 0, ...extra });
}

export async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const all: SDKMessage[] = [];
  for await (const message of messages) all.push(message);
  return all;
}

/** Event labels: type[/subtype][:agent], consecutive stream_events folded, nested agent messages summarised. */
export function shape(messages: SDKMessage[]): string[] {
  const out: string[] = [];
  for (const message of messages) {
    let label: string;
    if (message.type === "stream_event") label = "stream_event*";
    else if (message.type === "team_message")
      label = `team_message/${message.subtype}:${message.message.kind}`;
    else if (message.type === "team_agent") label = `team_agent/${message.subtype}:${message.agent}`;
    else if (message.type === "agent_message")
      label = `agent_message:${message.agent}:${message.message.type === "stream_event" ? "stream_event*" : message.message.type}`;
    else label = message.type;
    if (label.endsWith("stream_event*") && out.at(-1) === label) continue;
    out.push(label);
  }
  return out;
}

/** The text of the last user message of a recorded request (what the model was just told). */
export function lastUserText(request: RecordedRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const parts: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "user"; i--) {
    const content = messages[i]!.content;
    const blocks = typeof content === "string" ? [{ type: "text", text: content }] : (content as any[]);
    parts.unshift(
      blocks
        .map(block =>
          block.type === "text" ? block.text : block.type === "tool_result" ? toText(block.content) : "",
        )
        .join("\n"),
    );
  }
  return parts.join("\n");
}

function toText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(block => (block as { text?: string }).text ?? "").join("");
  return "";
}

export function requestsFor(server: MockAnthropicServer, model: string): RecordedRequest[] {
  return server.requests.filter(request => request.body.model === model);
}
