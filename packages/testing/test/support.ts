// Shared test helpers (not a test file: vitest only collects *.test.ts).
import Anthropic from "@anthropic-ai/sdk";
import { afterEach } from "vitest";
import {
  type MockAnthropicServer,
  type MockAnthropicServerOptions,
  startMockAnthropicServer,
} from "../src/index.js";

/** A minimal Messages request body. */
export const ask = {
  model: "claude-test",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "What is the weather in Paris?" }],
};

const servers: MockAnthropicServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});

/** Starts a server that is closed after the current test. */
export async function serve(options?: MockAnthropicServerOptions): Promise<MockAnthropicServer> {
  const server = await startMockAnthropicServer(options);
  servers.push(server);
  return server;
}

/** The official client pointed at the mock; no retries unless asked, so fault tests stay fast. */
export function sdk(server: MockAnthropicServer, options: { maxRetries?: number } = {}): Anthropic {
  return new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: options.maxRetries ?? 0 });
}

/** Parses an SSE body into `{ event, data }` pairs, exactly as framed on the wire. */
export function parseSse(body: string): Array<{ event: string; data: any }> {
  return body
    .split("\n\n")
    .filter(frame => frame.length > 0)
    .map(frame => {
      const match = /^event: (.+)\ndata: (.+)$/.exec(frame);
      if (!match) throw new Error(`malformed SSE frame: ${JSON.stringify(frame)}`);
      return { event: match[1]!, data: JSON.parse(match[2]!) };
    });
}

/** Posts a body to the mock with plain fetch, to inspect the raw wire. */
export function post(server: MockAnthropicServer, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "test", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
