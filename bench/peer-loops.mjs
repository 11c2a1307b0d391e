// Benchmark: the same streamed 20-turn tool loop (the model calls `echo` 19 times, then answers) through
// AgentLattice and through the peer SDKs our users compare us with, each speaking the Anthropic Messages API to one
// mock server in its own process: `agent-lattice` (createBareAgent), `ai` (Vercel AI SDK streamText with
// @ai-sdk/anthropic), `@openai/agents` (run() with its AI SDK model adapter over @ai-sdk/anthropic, tracing off),
// `@mastra/core` (Agent.stream with @ai-sdk/anthropic 2, the model generation it accepts), and the hand-written
// `@anthropic-ai/sdk` loop of loop-overhead.mjs as the floor. The peers are installed with npm into a temp
// project at their current versions (network: the npm registry). Every side must make exactly 20 requests per run
// (checked at the mock). Interleaved rounds in rotating order, medians; per-round ratios peer / agent-lattice
// (stats.mjs), so the machine's noise hits every side alike. Not run: the Claude Agent SDK, which runs the
// Claude Code CLI as a child process per query (its own tools and requests), so it cannot run this loop.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { agentLoop, rawLoop } from "./loop-overhead.mjs";
import { median, startMockServerProcess } from "./mock-server.mjs";
import { pairedRatio } from "./stats.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const WARMUP = 3;
const TURNS = 20;
const MODEL = "bench-model";
const PROMPT = "Check every item.";
const DESCRIPTION = "Echo text back in upper case";
const echo = async ({ text }) => text.toUpperCase();

function installPeers() {
  const dir = mkdtempSync(join(tmpdir(), "al-peer-loops-"));
  writeFileSync(join(dir, "package.json"), '{ "name": "bench-peers", "private": true }\n');
  execFileSync(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--prefer-offline",
      "ai@6",
      "@ai-sdk/anthropic@3",
      "@openai/agents",
      "@openai/agents-extensions",
      "@mastra/core",
      "anthropic-v2@npm:@ai-sdk/anthropic@2",
      "zod@4",
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
  );
  const require = createRequire(join(dir, "package.json"));
  const load = specifier => import(pathToFileURL(require.resolve(specifier)).href);
  const version = name =>
    JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")).version;
  return { dir, load, version };
}

/** name → run(): one 20-turn loop through that SDK, its output consumed as a stream. */
async function subjects(url, peers) {
  const { z } = await peers.load("zod");
  const { streamText, tool: aiTool, stepCountIs } = await peers.load("ai");
  const { createAnthropic } = await peers.load("@ai-sdk/anthropic");
  const openai = await peers.load("@openai/agents");
  const { aisdk } = await peers.load("@openai/agents-extensions/ai-sdk");
  const { Agent: MastraAgent } = await peers.load("@mastra/core/agent");
  const { createTool } = await peers.load("@mastra/core/tools");
  const { createAnthropic: createAnthropicV2 } = await peers.load("anthropic-v2");
  openai.setTracingDisabled(true);
  const anthropic = createAnthropic({ baseURL: `${url}/v1`, apiKey: "bench" });
  const anthropicV2 = createAnthropicV2({ baseURL: `${url}/v1`, apiKey: "bench" });
  const input = z.object({ text: z.string() });
  const client = new Anthropic({ apiKey: "bench", baseURL: url });
  // Every SDK's tool is defined once, as an application does (ours is too, in loop-overhead.mjs); agents and runs
  // are created per run.
  const aiTools = { echo: aiTool({ description: DESCRIPTION, inputSchema: input, execute: echo }) };
  const openaiEcho = openai.tool({
    name: "echo",
    description: DESCRIPTION,
    parameters: input,
    execute: echo,
  });
  const mastraEcho = createTool({
    id: "echo",
    description: DESCRIPTION,
    inputSchema: input,
    execute: async ({ context }) => echo(context),
  });

  return {
    "agent-lattice": () => agentLoop(url),
    "@anthropic-ai/sdk (hand-written)": () => rawLoop(client),
    ai: async () => {
      const result = streamText({
        model: anthropic(MODEL),
        prompt: PROMPT,
        maxOutputTokens: 8192,
        stopWhen: stepCountIs(TURNS + 1),
        tools: aiTools,
      });
      for await (const _part of result.fullStream);
    },
    "@openai/agents": async () => {
      const agent = new openai.Agent({
        name: "bench",
        instructions: "",
        model: aisdk(anthropic(MODEL)),
        modelSettings: { maxTokens: 8192 },
        tools: [openaiEcho],
      });
      const result = await openai.run(agent, PROMPT, { maxTurns: TURNS + 1, stream: true });
      for await (const _event of result);
      await result.completed;
    },
    "@mastra/core": async () => {
      const agent = new MastraAgent({
        name: "bench",
        instructions: "",
        model: anthropicV2(MODEL),
        tools: { echo: mastraEcho },
      });
      const result = await agent.stream(PROMPT, {
        maxSteps: TURNS + 1,
        modelSettings: { maxOutputTokens: 8192 },
      });
      for await (const _part of result.fullStream);
    },
  };
}

export async function runPeerLoops() {
  const loadAverageBefore = loadavg().map(value => +value.toFixed(2));
  const peers = installPeers();
  const server = await startMockServerProcess({ TOOL_TURNS: String(TURNS - 1) });
  try {
    const runs = await subjects(server.url, peers);
    const names = Object.keys(runs);
    const times = Object.fromEntries(names.map(name => [name, []]));
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      for (const name of order) {
        const before = await server.requests();
        const start = performance.now();
        await runs[name]();
        const ms = performance.now() - start;
        const requests = (await server.requests()) - before;
        if (requests !== TURNS) throw new Error(`${name} made ${requests} requests, not ${TURNS}`);
        if (round >= WARMUP) times[name].push(ms);
      }
    }
    const ours = times["agent-lattice"];
    const versions = {
      ai: peers.version("ai"),
      "@ai-sdk/anthropic": peers.version("@ai-sdk/anthropic"),
      "@openai/agents": peers.version("@openai/agents"),
      "@openai/agents-extensions": peers.version("@openai/agents-extensions"),
      "@mastra/core": peers.version("@mastra/core"),
      "@ai-sdk/anthropic (for Mastra)": peers.version("anthropic-v2"),
    };
    const report = {
      benchmark: "the same streamed 20-turn tool loop against one mock server: agent-lattice vs peer SDKs",
      node: process.version,
      rounds: ROUNDS,
      versions,
      medianMs: Object.fromEntries(names.map(name => [name, +median(times[name]).toFixed(1)])),
      // How many times longer each side's run takes than agent-lattice's, round by round.
      timesAgentLattice: Object.fromEntries(
        names.filter(name => name !== "agent-lattice").map(name => [name, pairedRatio(times[name], ours)]),
      ),
      loadAverage: { before: loadAverageBefore, after: loadavg().map(value => +value.toFixed(2)) },
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await server.stop();
    rmSync(peers.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runPeerLoops();
