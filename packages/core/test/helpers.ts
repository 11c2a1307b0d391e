import {
  type MockAnthropicServer,
  type MockAnthropicServerOptions,
  type MockScriptItem,
  startMockAnthropicServer,
} from "@agent-lattice/testing";
import { afterEach } from "vitest";
import type { SDKMessage } from "../src/index.js";

const servers: MockAnthropicServer[] = [];

/** A mock Anthropic server closed automatically after the test. */
export async function mockServer(
  script: MockScriptItem[] = [],
  options: Omit<MockAnthropicServerOptions, "script"> = {},
): Promise<MockAnthropicServer> {
  const server = await startMockAnthropicServer({ ...options, script });
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});

export async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const all: SDKMessage[] = [];
  for await (const message of messages) all.push(message);
  return all;
}

/** The message types of a query, with consecutive stream_events folded into one entry. */
export function shape(messages: SDKMessage[]): string[] {
  const out: string[] = [];
  for (const message of messages) {
    if (message.type === "stream_event" && out.at(-1) === "stream_event*") continue;
    out.push(message.type === "stream_event" ? "stream_event*" : message.type);
  }
  return out;
}

/** A deep copy without any cache_control marker, for assertions about something other than prompt caching. */
export function unmarked<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, inner) => (key === "cache_control" ? undefined : inner));
}

/**
 * The text of a message's content, whether it was sent as a string or as text blocks (with prompt caching on, the
 * newest message goes out as blocks so its last block can carry the breakpoint).
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map(block => (block?.type === "text" ? block.text : "")).join("");
}

/**
 * Messages as the model reads them, for assertions about conversation content: markers removed, and user content
 * that is a single plain text block written as its string (the API treats the string as shorthand for that
 * block; core sends the newest prompt as a block so it can carry the cache breakpoint).
 */
export function plainMessages(messages: unknown): any[] {
  return (unmarked(messages) as any[]).map(message => {
    const content = message.content;
    const single =
      message.role === "user" &&
      Array.isArray(content) &&
      content.length === 1 &&
      content[0].type === "text" &&
      Object.keys(content[0]).length === 2;
    return single ? { ...message, content: content[0].text } : message;
  });
}
