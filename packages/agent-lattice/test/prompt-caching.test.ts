// Prompt caching with createAgent()'s defaults: the private workspace's section and built-in tools keep the
// request prefix byte-stable turn to turn, and sessions built from the same options share what they can.
import { rm } from "node:fs/promises";
import { type AgentOptions, createAgent, skill, tool } from "agent-lattice";
import {
  type MockScriptItem,
  promptBlocks,
  type RecordedRequest,
  startMockAnthropicServer,
  textTurn,
  toolTurn,
} from "agent-lattice/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";

const servers: Array<{ close(): Promise<void> }> = [];
const workspaces: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
  await Promise.all(workspaces.splice(0).map(dir => rm(dir, { recursive: true, force: true })));
});

const echo = tool("echo", "Echo text back", z.object({ text: z.string() }), async ({ text }) => ({
  content: `echo: ${text}`,
}));
const review = skill({ name: "code-review", description: "Review code", instructions: "List bugs first." });

async function cachingServer(script: MockScriptItem[]) {
  const server = await startMockAnthropicServer({ script, promptCache: true });
  servers.push(server);
  return server;
}

function options(url: string): AgentOptions {
  return {
    apiKey: "k",
    baseURL: url,
    model: "claude-sonnet-4-5",
    systemPrompt: "You review pull requests for the payments team. ".repeat(40),
    tools: [echo],
    skills: [review],
  };
}

/** Blocks of `b` up to `a`'s last breakpoint equal `a`'s (markers and locations aside). */
function sharesPrefix(a: RecordedRequest, b: RecordedRequest): boolean {
  const strip = (block: ReturnType<typeof promptBlocks>[number]) =>
    JSON.stringify([block.section, block.role, block.opensMessage, block.content]);
  const before = promptBlocks(a.body);
  const last = before.findLastIndex(block => block.cacheControl !== undefined);
  const after = promptBlocks(b.body);
  return (
    last > 0 && before.slice(0, last + 1).every((block, i) => after[i] && strip(block) === strip(after[i]))
  );
}

describe("prompt caching with the default workspace", () => {
  it("every request's prefix up to the previous breakpoint is identical, workspace and skills sections included", async () => {
    const server = await cachingServer([
      toolTurn({ name: "echo", input: { text: "a" } }),
      toolTurn({ name: "echo", input: { text: "b" } }),
      textTurn("done"),
      toolTurn({ name: "echo", input: { text: "c" } }),
      textTurn("done again"),
    ]);
    const agent = createAgent(options(server.url));
    await agent.prompt("Start the code-review.");
    await agent.prompt("Finish the code-review.");
    const requests = server.requests;
    expect(requests).toHaveLength(5);
    const system = requests[0]!.body.system as Array<{ text: string }>;
    expect(system[1]!.text).toContain("# Workspace");
    expect(system[2]!.text).toContain("# Skills");
    for (let i = 1; i < requests.length; i++) {
      expect(sharesPrefix(requests[i - 1]!, requests[i]!)).toBe(true);
      const previous = requests[i - 1]!.promptCache!.breakpoints.at(-1)!;
      expect(requests[i]!.promptCache!.hit?.position).toBe(previous.position);
    }
    // Over the whole run far more was read from the cache than written to it.
    const total = (key: "cache_read_input_tokens" | "cache_creation_input_tokens") =>
      requests.reduce((sum, request) => sum + request.promptCache!.usage[key], 0);
    expect(total("cache_read_input_tokens")).toBeGreaterThan(2 * total("cache_creation_input_tokens"));
  });

  it("a second session reads the tools and the host's prompt; its own workspace section comes after them", async () => {
    const server = await cachingServer([textTurn("one"), textTurn("two")]);
    await createAgent(options(server.url)).prompt("hello");
    await createAgent(options(server.url)).prompt("hello");
    const [first, second] = server.requests;
    expect(first!.body.system[1].text).not.toBe(second!.body.system[1].text);
    expect(second!.promptCache!.hit?.location).toBe("system.0");
    expect(second!.promptCache!.usage.cache_read_input_tokens).toBeGreaterThan(1024);
  });
});
