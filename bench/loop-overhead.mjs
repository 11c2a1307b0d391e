// Benchmark: a streamed 20-turn tool loop through createBareAgent vs the same loop hand-written over
// @anthropic-ai/sdk (raw create({ stream: true }) with manual assembly, the fastest way to use it),
// against the same mock server. Runs are interleaved so machine noise hits both sides alike.
import Anthropic from "@anthropic-ai/sdk";
import { createBareAgent, tool } from "agent-lattice";
import { z } from "zod/v4";
import { median, startMockServerProcess } from "./mock-server.mjs";
import { pairedRatio } from "./stats.mjs";

const TURNS = 20;
const ROUNDS = Number(process.env.ROUNDS ?? 60);
const WARMUP = 5;
const MODEL = "bench-model";
const echoHandler = async ({ text }) => ({ content: text.toUpperCase() });

// Tools are defined once, as an application does (and as the raw loop builds its tool list once below); each run
// creates its agent, as a service handling one request per agent does.
const echo = tool("echo", "Echo text back in upper case", z.object({ text: z.string() }), echoHandler);

export async function agentLoop(baseURL) {
  const agent = createBareAgent({
    apiKey: "bench",
    baseURL,
    model: MODEL,
    tools: [echo],
    maxTurns: TURNS + 1,
  });
  let result;
  for await (const message of agent.query("Check every item."))
    if (message.type === "result") result = message;
  if (result.subtype !== "success" || result.num_turns !== TURNS)
    throw new Error(`agent loop went wrong: ${JSON.stringify(result)}`);
}

const inputSchema = z.object({ text: z.string() });
const rawTools = [
  { name: "echo", description: "Echo text back in upper case", input_schema: z.toJSONSchema(inputSchema) },
];

export async function rawLoop(client) {
  const messages = [{ role: "user", content: "Check every item." }];
  for (let turn = 1; ; turn++) {
    const stream = await client.messages.create({
      model: MODEL,
      max_tokens: 8192,
      messages,
      tools: rawTools,
      stream: true,
    });
    const content = [];
    const json = [];
    let stopReason = null;
    for await (const event of stream) {
      if (event.type === "content_block_start") content[event.index] = { ...event.content_block };
      else if (event.type === "content_block_delta") {
        if (event.delta.type === "text_delta") content[event.index].text += event.delta.text;
        else if (event.delta.type === "input_json_delta")
          json[event.index] = (json[event.index] ?? "") + event.delta.partial_json;
      } else if (event.type === "content_block_stop" && json[event.index] !== undefined) {
        content[event.index].input = JSON.parse(json[event.index]);
      } else if (event.type === "message_delta") stopReason = event.delta.stop_reason;
    }
    messages.push({ role: "assistant", content });
    if (stopReason !== "tool_use") {
      if (turn !== TURNS) throw new Error(`raw loop ended after ${turn} turns`);
      return;
    }
    const results = [];
    for (const block of content) {
      if (block.type !== "tool_use") continue;
      const output = await echoHandler(inputSchema.parse(block.input));
      results.push({ type: "tool_result", tool_use_id: block.id, content: output.content });
    }
    messages.push({ role: "user", content: results });
  }
}

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function runLoopOverhead() {
  const server = await startMockServerProcess({ TOOL_TURNS: String(TURNS - 1) });
  try {
    const client = new Anthropic({ apiKey: "bench", baseURL: server.url });
    const agentTimes = [];
    const rawTimes = [];
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const order = round % 2 === 0 ? ["agent", "raw"] : ["raw", "agent"];
      for (const side of order) {
        const ms =
          side === "agent" ? await time(() => agentLoop(server.url)) : await time(() => rawLoop(client));
        if (round >= WARMUP) (side === "agent" ? agentTimes : rawTimes).push(ms);
      }
    }
    const agent = median(agentTimes);
    const raw = median(rawTimes);
    const report = {
      benchmark: "20-turn streamed tool loop: createBareAgent vs hand-written @anthropic-ai/sdk loop",
      rounds: ROUNDS,
      agentMedianMs: +agent.toFixed(2),
      rawMedianMs: +raw.toFixed(2),
      // Per-round agent/raw ratios (the two sides ran back to back in each round, in alternating order).
      pairedRatio: pairedRatio(agentTimes, rawTimes, 1.05),
      overheadPerTurnMs: +((agent - raw) / TURNS).toFixed(3),
      target: "median paired ratio <= 1.05 with its 95% interval, and < 1 ms overhead per turn",
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runLoopOverhead();
