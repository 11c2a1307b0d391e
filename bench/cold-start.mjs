// Benchmark: a fresh process that imports the umbrella and sends one agent request must reach the model no
// later than 30 ms after a fresh process that uses @anthropic-ai/sdk alone. Measured from spawn to the
// request's arrival at the mock server, alternating the two programs.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startMockAnthropicServer, textTurn } from "@agent-lattice/testing";
import { median } from "./mock-server.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const here = fileURLToPath(new URL(".", import.meta.url));

const programs = {
  "@anthropic-ai/sdk alone": `
    import Anthropic from "@anthropic-ai/sdk";
    const client = new Anthropic({ apiKey: "bench", baseURL: process.env.MOCK_URL });
    await client.messages.create({ model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });`,
  "agent-lattice createAgent": `
    import { createAgent } from "agent-lattice";
    const agent = createAgent({ apiKey: "bench", baseURL: process.env.MOCK_URL, model: "m" });
    await agent.prompt("hi", { stream: false });`,
};

async function timeToFirstRequest(server, source) {
  const before = server.requests.length;
  const start = Date.now();
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], {
    cwd: here,
    env: { ...process.env, MOCK_URL: server.url },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const code = await new Promise(resolve => child.once("exit", resolve));
  if (code !== 0 || server.requests.length !== before + 1)
    throw new Error(`cold-start program failed (exit ${code})`);
  return server.requests[before].receivedAt - start;
}

export async function runColdStart() {
  const server = await startMockAnthropicServer({ respond: () => textTurn("hello") });
  try {
    const times = Object.fromEntries(Object.keys(programs).map(name => [name, []]));
    for (let run = 0; run < RUNS + 2; run++) {
      for (const [name, source] of Object.entries(programs)) {
        const ms = await timeToFirstRequest(server, source);
        if (run >= 2) times[name].push(ms);
      }
    }
    const [rawName, oursName] = Object.keys(programs);
    const raw = median(times[rawName]);
    const ours = median(times[oursName]);
    const report = {
      benchmark: "fresh process: spawn → first request at the model",
      runs: RUNS,
      rawSdkMedianMs: raw,
      agentLatticeMedianMs: ours,
      differenceMs: ours - raw,
      target: "difference <= 30 ms",
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runColdStart();
