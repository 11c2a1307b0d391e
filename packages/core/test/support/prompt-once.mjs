// The body of the hosted tracing adapters' short-lived-process fixtures: one prompt (a tool call, then an answer)
// of an agent named "oneshot" against the mock model at MODEL_URL, traced by `tracer`; prints the result's
// subtype, closes the tracer and exits at once. Runs the built packages, as a user's process would.
import { createBareAgent, tool } from "@agent-lattice/core";
import { z } from "zod/v4";

export async function promptOnceAndExit(tracer) {
  const echo = tool("echo", "Echoes its input", z.object({ text: z.string() }), async ({ text }) => ({
    content: text.toUpperCase(),
  }));
  const agent = createBareAgent({
    apiKey: "k",
    baseURL: process.env.MODEL_URL,
    model: "m",
    name: "oneshot",
    tools: [echo],
    tracer,
  });
  try {
    const result = await agent.prompt("Shout hello.");
    console.log(JSON.stringify({ subtype: result.subtype }));
  } finally {
    await tracer.close();
  }
  process.exit(0);
}
