// Benchmark: a fresh process that imports the umbrella and sends one agent request must reach the model no
// later than 30 ms after a fresh process that uses @anthropic-ai/sdk alone. Measured from spawn to the
// request's arrival at the mock server, alternating the two programs. Each program also reports, on its own clock,
// when its imports were done (ms since the process started): on a noisy machine the spread of the spawn-to-request
// difference is wide, and the in-process import time isolates what our modules cost to compile and evaluate.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startMockAnthropicServer, textTurn } from "@agent-lattice/testing";
import { quantile } from "./stats.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const here = fileURLToPath(new URL(".", import.meta.url));

// Static imports run before the module body, so the body's first statement reads the clock after them.
const programs = {
  "@anthropic-ai/sdk alone": `
    import Anthropic from "@anthropic-ai/sdk";
    console.log(performance.now());
    const client = new Anthropic({ apiKey: "bench", baseURL: process.env.MOCK_URL });
    await client.messages.create({ model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });`,
  "agent-lattice createAgent": `
    import { createAgent } from "agent-lattice";
    console.log(performance.now());
    const agent = createAgent({ apiKey: "bench", baseURL: process.env.MOCK_URL, model: "m" });
    await agent.prompt("hi", { stream: false });`,
};

async function timeToFirstRequest(server, source) {
  const before = server.requests.length;
  const start = Date.now();
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], {
    cwd: here,
    env: { ...process.env, MOCK_URL: server.url },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", chunk => {
    output += chunk;
  });
  const code = await new Promise(resolve => child.once("exit", resolve));
  if (code !== 0 || server.requests.length !== before + 1)
    throw new Error(`cold-start program failed (exit ${code})`);
  return { request: server.requests[before].receivedAt - start, imported: Number(output.trim()) };
}

/** Median and interquartile range, rounded to 0.1 ms. */
function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = value => +value.toFixed(1);
  return {
    median: round(quantile(sorted, 0.5)),
    iqr: [round(quantile(sorted, 0.25)), round(quantile(sorted, 0.75))],
  };
}

export async function runColdStart() {
  const server = await startMockAnthropicServer({ respond: () => textTurn("hello") });
  try {
    const times = Object.fromEntries(Object.keys(programs).map(name => [name, []]));
    for (let run = 0; run < RUNS + 2; run++) {
      for (const [name, source] of Object.entries(programs)) {
        const sample = await timeToFirstRequest(server, source);
        if (run >= 2) times[name].push(sample);
      }
    }
    const [rawName, oursName] = Object.keys(programs);
    const pick = (name, key) => times[name].map(sample => sample[key]);
    // Paired per round: both programs ran back to back, so machine noise hits them alike.
    const paired = key => pick(oursName, key).map((ours, i) => ours - pick(rawName, key)[i]);
    const raw = summary(pick(rawName, "request"));
    const ours = summary(pick(oursName, "request"));
    const report = {
      benchmark: "fresh process: spawn → first request at the model",
      runs: RUNS,
      rawSdkMedianMs: raw.median,
      agentLatticeMedianMs: ours.median,
      differenceMs: +(ours.median - raw.median).toFixed(1),
      pairedDifferenceMs: summary(paired("request")),
      spreadMs: { rawSdk: raw.iqr, agentLattice: ours.iqr },
      // In-process clock: process start → the program's static imports done. The SDK program has loaded the SDK by
      // then; agent-lattice loads it on the first request, so its figure is Node's start plus our own modules.
      importsDoneMs: {
        rawSdk: summary(pick(rawName, "imported")),
        agentLattice: summary(pick(oursName, "imported")),
      },
      target: "difference <= 30 ms",
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runColdStart();
