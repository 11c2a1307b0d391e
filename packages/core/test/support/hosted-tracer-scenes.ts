// Test scaffolding shared by the hosted tracing adapters' tests (tracing-langsmith, tracing-langfuse; they import
// it by relative path, as packages depending on core): mock model servers closed after each test, the standard
// scene they trace, and what a test of a built adapter in a child process needs. Library-independent: no
// LangSmith or Langfuse here.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type MockAnthropicServer,
  type MockScriptItem,
  startMockAnthropicServer,
  textTurn,
  toolTurn,
} from "@agent-lattice/testing";
import { afterEach, expect } from "vitest";
import { z } from "zod/v4";
import { agentTool, createBareAgent, tool } from "../../src/index.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map(close => close()));
});

/** Registers a cleanup to run after the current test. */
export function onCleanup(close: () => Promise<void>): void {
  closers.push(close);
}

/** A mock model server, closed after the test. */
export async function mockModel(script: MockScriptItem[]): Promise<MockAnthropicServer> {
  const server = await startMockAnthropicServer({ script });
  onCleanup(() => server.close());
  return server;
}

export const LEAD_USAGE = {
  input_tokens: 100,
  output_tokens: 20,
  cache_read_input_tokens: 50,
  cache_creation_input_tokens: 30,
};

/**
 * The standard scene: a lead agent ("lead") with a tool that works (lookup), one that throws (broken) and a
 * delegated child ("researcher", its own model server), all called in one batch, then a final answer.
 */
export async function leadWithToolAndChild() {
  const leadModel = await mockModel([
    toolTurn(
      [
        { name: "lookup", input: { q: "tides" }, id: "call_lookup" },
        { name: "broken", input: {}, id: "call_broken" },
        { name: "researcher", input: { task: "Summarise tides" }, id: "call_child" },
      ],
      { usage: LEAD_USAGE, text: "Let me check." },
    ),
    textTurn("Tides follow the moon.", { usage: { input_tokens: 200, output_tokens: 10 } }),
  ]);
  const childModel = await mockModel([
    textTurn("The moon pulls the sea.", { usage: { input_tokens: 40, output_tokens: 8 } }),
  ]);
  const researcher = createBareAgent({
    apiKey: "k",
    baseURL: childModel.url,
    model: "child-model",
    name: "researcher",
  });
  const lookup = tool("lookup", "Looks a fact up", z.object({ q: z.string() }), async ({ q }) => ({
    content: `fact about ${q}`,
  }));
  const broken = tool("broken", "Always fails", z.object({}), async () => {
    throw new Error("disk on fire");
  });
  const lead = createBareAgent({
    apiKey: "k",
    baseURL: leadModel.url,
    model: "lead-model",
    name: "lead",
    tools: [lookup, broken, agentTool("researcher", researcher)],
  });
  return { lead, leadModel, childModel };
}

export const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** The text of a message's content, whether a string or blocks (prompt caching marks the last block). */
export function messageText(message: { content: unknown }): string {
  const { content } = message;
  if (typeof content === "string") return content;
  return (content as Array<{ type: string; text?: string }>).map(block => block.text ?? "").join("");
}

const RECORD_LOADS = fileURLToPath(new URL("./record-loads.mjs", import.meta.url));

/**
 * Package names whose modules a fresh Node process resolved while running `script` (packages under
 * node_modules by their last node_modules segment, workspace packages' dist/ as @agent-lattice/<dir>).
 */
export async function packagesLoadedBy(script: string): Promise<Set<string>> {
  const dir = await mkdtemp(join(tmpdir(), "al-loads-"));
  const loadsFile = join(dir, "loads.txt");
  try {
    const run = spawnSync(process.execPath, ["--import", RECORD_LOADS, script], {
      env: { ...process.env, LOADS_FILE: loadsFile },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    const urls = (await readFile(loadsFile, "utf8").catch(() => "")).split("\n").filter(Boolean);
    // The last node_modules segment names the package (pnpm resolves to node_modules/.pnpm/<id>/node_modules/<name>).
    const names = urls.map(
      url =>
        /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ??
        /\/packages\/([^/]+)\/dist\//.exec(url)?.[1]?.replace(/^/, "@agent-lattice/"),
    );
    return new Set(names.filter((name): name is string => !!name));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs a Node script in its own process to its exit: its exit code and output. */
export async function runNodeScript(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", chunk => (stdout += chunk));
  child.stderr.on("data", chunk => (stderr += chunk));
  const code = await new Promise<number | null>(resolve => child.on("exit", resolve));
  return { code, stdout, stderr };
}
