// A real run to look at: a lead agent with tools and a delegated reviewer, against @agent-lattice/testing's mock
// Anthropic server (real HTTP/SSE through core's built-in client), traced by createJsonlContextTracer. The tests
// assert the viewer against it and scripts/screenshots.mjs photographs it, so the pictures in the docs show what
// the code draws. Token counts are scripted so totals are known exactly (DEMO_USAGE).
import {
  agentTool,
  createAgentFactory,
  createBareAgent,
  createJsonlContextTracer,
  tool,
} from "@agent-lattice/core";
import { startMockAnthropicServer, textTurn, toolTurn } from "@agent-lattice/testing";
import { z } from "zod/v4";

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/** Scripted usage of each model turn, in the order the turns happen (lead 1, lead 2, reviewer 1, reviewer 2, lead 3). */
export const DEMO_USAGE = {
  lead1: {
    input_tokens: 1840,
    output_tokens: 96,
    cache_creation_input_tokens: 1536,
    cache_read_input_tokens: 0,
  },
  lead2: {
    input_tokens: 412,
    output_tokens: 71,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1536,
  },
  reviewer1: {
    input_tokens: 930,
    output_tokens: 48,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  },
  reviewer2: {
    input_tokens: 1105,
    output_tokens: 164,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  },
  lead3: {
    input_tokens: 688,
    output_tokens: 142,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1536,
  },
};

export const DEMO_PROMPT = "Customers report totals off by a cent. Find the bug in src/cart.ts.";
export const DEMO_ANSWER =
  "The discount is rounded before tax is applied (applyDiscount, line 14), so totals drift by a cent. Round once, after tax.";
export const DEMO_REVIEW =
  "applyDiscount() calls Math.round on the discounted subtotal, then addTax() rounds again: two roundings.";

/**
 * Runs the demo and writes its trace to `path`. Returns the run's result message.
 */
export async function recordDemoTrace(path) {
  const lead = [
    toolTurn(
      [
        { name: "read_file", input: { path: "src/cart.ts" }, id: "toolu_read" },
        { name: "run_tests", input: { filter: "cart" }, id: "toolu_tests" },
      ],
      { text: "Let me read the cart code and run its tests.", usage: DEMO_USAGE.lead1, delayMs: 60 },
    ),
    toolTurn(
      {
        name: "reviewer",
        input: { task: "Review src/cart.ts for rounding errors in applyDiscount and addTax." },
        id: "toolu_review",
      },
      {
        text: "Two tests fail on totals. I'll ask the reviewer to audit the rounding.",
        usage: DEMO_USAGE.lead2,
        delayMs: 45,
      },
    ),
    textTurn(DEMO_ANSWER, { usage: DEMO_USAGE.lead3, delayMs: 70 }),
  ];
  const reviewer = [
    toolTurn(
      { name: "grep", input: { pattern: "Math.round", path: "src" }, id: "toolu_grep" },
      { usage: DEMO_USAGE.reviewer1, delayMs: 35 },
    ),
    textTurn(DEMO_REVIEW, { usage: DEMO_USAGE.reviewer2, delayMs: 55 }),
  ];
  const server = await startMockAnthropicServer();
  server.respondWith(request => {
    // The reviewer is told apart by its system prompt (a string, or text blocks when prompt caching marks it).
    const queue = JSON.stringify(request.body.system ?? "").includes("You review code") ? reviewer : lead;
    const next = queue.shift();
    if (!next) throw new Error("demo: script exhausted");
    return next;
  });

  const concurrent = { isConcurrencySafe: () => true };
  const readFile = tool(
    "read_file",
    "Reads a file of the project.",
    z.object({ path: z.string() }),
    async ({ path: file }) => {
      await sleep(30);
      return {
        content: `// ${file}\nexport function applyDiscount(subtotal, rate) {\n  return Math.round(subtotal * (1 - rate));\n}`,
      };
    },
    concurrent,
  );
  const runTests = tool(
    "run_tests",
    "Runs the test suite.",
    z.object({ filter: z.string().optional() }),
    async () => {
      await sleep(90);
      return {
        content:
          "FAIL cart.test.ts\n  ✕ total with 10% discount (expected 1099, got 1100)\n  ✕ total with tax\n2 failed, 14 passed",
        isError: true,
      };
    },
    concurrent,
  );
  const grep = tool(
    "grep",
    "Searches files.",
    z.object({ pattern: z.string(), path: z.string() }),
    async () => {
      await sleep(25);
      return {
        content:
          "src/cart.ts:14:  return Math.round(subtotal * (1 - rate));\nsrc/tax.ts:8:  return Math.round(amount * 1.2);",
      };
    },
  );

  const { defineAgent } = createAgentFactory();
  const reviewerSpec = defineAgent({
    apiKey: "test",
    baseURL: server.url,
    model: "claude-sonnet-4-6",
    name: "reviewer",
    systemPrompt: "You review code for correctness.",
    tools: [grep],
  });
  const agent = createBareAgent({
    apiKey: "test",
    baseURL: server.url,
    model: "claude-sonnet-4-6",
    name: "lead",
    systemPrompt: "You are a senior engineer fixing bugs.",
    tools: [
      readFile,
      runTests,
      agentTool("reviewer", reviewerSpec, { description: "Ask the reviewer to audit code." }),
    ],
  });
  const tracer = createJsonlContextTracer({ path });
  try {
    return await agent.prompt(DEMO_PROMPT, { tracer });
  } finally {
    await tracer.close();
    await agent.close();
    await server.close();
  }
}
