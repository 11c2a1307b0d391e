import { type MockAnthropicServer, type MockScriptItem, startMockAnthropicServer } from "agent-lattice/testing";
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
