import {
  type MockAnthropicServer,
  type MockScriptItem,
  startMockAnthropicServer,
} from "agent-lattice/testing";
import { afterEach, vi } from "vitest";

const servers: MockAnthropicServer[] = [];

/** The spec's snippets talk to DeepSeek; here they talk to this mock instead (only apiKey/baseURL differ). */
export async function mockProvider(script: MockScriptItem[]): Promise<MockAnthropicServer> {
  const server = await startMockAnthropicServer({ script });
  servers.push(server);
  return server;
}

/** Captures what a snippet prints with console.log. */
export function captureConsole(): unknown[][] {
  const lines: unknown[][] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    lines.push(args);
  });
  return lines;
}

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map(server => server.close()));
});

/** A deep copy without any cache_control marker, for assertions about something other than prompt caching. */
export function unmarked<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, inner) => (key === "cache_control" ? undefined : inner));
}

/**
 * Messages as the model reads them: markers removed, and user content that is a single plain text block written
 * as its string (the API treats the string as shorthand for that block; with prompt caching on, the newest
 * prompt goes out as a block so it can carry the cache breakpoint).
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
