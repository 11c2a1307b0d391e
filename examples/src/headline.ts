import { createAgent, tool } from "agent-lattice";
import { z } from "zod/v4";

// The model gets your tools plus the built-in Read, Write, Edit, LS, Glob, Grep and Bash,
// which work in a private workspace directory of this session's own.
const agent = createAgent({
  apiKey: process.env.DEEPSEEK_API_KEY,
  baseURL: process.env.DEEPSEEK_BASE_URL ?? "https://api.deepseek.com/anthropic",
  model: "deepseek-v4-flash",
  tools: [
    tool("multiply", "Multiply a by b", z.object({ a: z.number(), b: z.number() }), async ({ a, b }) => ({
      content: String(a * b),
    })),
  ],
});

const prompt = "What is 1234 × 5678? Use multiply, write the answer to answer.txt, then show it with cat.";
for await (const message of agent.query(prompt)) {
  if (message.type === "stream_event") {
    const { event } = message;
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      process.stdout.write(event.delta.text);
    }
  } else if (message.type === "assistant") {
    for (const block of message.message.content) {
      if (block.type === "tool_use") console.log(`\n[${block.name}] ${JSON.stringify(block.input)}`);
    }
  } else if (message.type === "user") {
    for (const block of message.message.content) console.log(`  → ${String(block.content).trim()}`);
  } else if (message.type === "result") {
    // A failed run says why: its `result` is then the error's message (the typed error is `message.error`).
    const summary = `${message.num_turns} model turns, ${message.usage.output_tokens} tokens out`;
    console.log(`\n${message.subtype}: ${message.is_error ? message.result : summary}`);
    if (message.is_error) process.exitCode = 1;
  }
}

await agent.close(); // ends the session and releases what it holds
