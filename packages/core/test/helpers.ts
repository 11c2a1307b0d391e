import {
  type MockAnthropicServer,
  type MockScriptItem,
  startMockAnthropicServer,
} from "@agent-lattice/testing";
import { afterEach } from "vitest";
import type { SDKMessage } from "../src/index.js";

const servers: MockAnthropicServer[] = [];

/** A mock Anthropic server closed automatically after the test. */
export async function mockServer(script: MockScriptItem[] = []): Promise<MockAnthropicServer> {
  const server = await startMockAnthropicServer({ script });
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
