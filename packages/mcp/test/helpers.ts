import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolResultBlock } from "@agent-lattice/core";
import {
  type MockAnthropicServer,
  type MockScriptItem,
  startMockAnthropicServer,
} from "@agent-lattice/testing";
import { afterEach } from "vitest";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** The entry point of an installed MCP server package (its `bin`), run with this Node. */
export function serverEntry(packageName: string): string {
  const manifest = require.resolve(`${packageName}/package.json`);
  const bin = (require(manifest) as { bin: Record<string, string> }).bin;
  return join(dirname(manifest), Object.values(bin)[0]!);
}

export const EVERYTHING = serverEntry("@modelcontextprotocol/server-everything");
export const FILESYSTEM = serverEntry("@modelcontextprotocol/server-filesystem");

/** A fixture server of ours (test/fixtures/*.mjs), written with the MCP SDK's server classes. */
export function fixture(name: string): string {
  return join(here, "fixtures", name);
}

const servers: MockAnthropicServer[] = [];

/** A mock Anthropic server closed automatically after the test. */
export async function mockModel(script: MockScriptItem[] = []): Promise<MockAnthropicServer> {
  const server = await startMockAnthropicServer({ script });
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});

/** The tool_result blocks of the request's last (user) message. */
export function toolResults(body: {
  messages: Array<{ role: string; content: unknown }>;
}): ToolResultBlock[] {
  return body.messages.at(-1)!.content as ToolResultBlock[];
}

/** The tool names the model was offered in a recorded request. */
export function offeredTools(body: { tools?: Array<{ name: string }> }): string[] {
  return (body.tools ?? []).map(spec => spec.name);
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>(resolve => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise(resolve => probe.close(resolve));
  return port;
}

/** Whether a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/** The resources keeping this process alive, by type and count (timers, sockets, child processes, pipes). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/** Describes the child processes still holding a handle (for failure messages). */
export function childHandles(): string {
  return (
    process as unknown as {
      _getActiveHandles(): Array<{ pid?: number; spawnfile?: string; spawnargs?: string[] }>;
    }
  )
    ._getActiveHandles()
    .filter(handle => typeof handle.pid === "number")
    .map(handle => `${handle.pid}: ${handle.spawnargs?.join(" ")}`)
    .join("; ");
}

/**
 * Resources of each type beyond the baseline (what a test created and did not release). The runner's own timers
 * may come and go, so fewer than the baseline is fine.
 */
export function leftovers(baseline: Record<string, number>): Record<string, number> {
  const extra: Record<string, number> = {};
  for (const [type, count] of Object.entries(activeResources())) {
    if (count > (baseline[type] ?? 0)) extra[type] = count - (baseline[type] ?? 0);
  }
  return extra;
}

/** Waits until nothing is left beyond the baseline; fails naming what is. */
export async function nothingLeftSince(baseline: Record<string, number>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Object.keys(leftovers(baseline)).length > 0) {
    if (Date.now() > deadline) {
      throw new Error(
        `Still active beyond the baseline: ${JSON.stringify(leftovers(baseline))} ${childHandles()}`,
      );
    }
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

/** Waits until `check()` holds, polling; fails after `ms`. */
export async function eventually(check: () => boolean, ms = 3000, what = "condition"): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}
