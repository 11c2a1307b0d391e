import { agentTool, createBareAgent, tool } from "@agent-lattice/core";
import {
  type MockAnthropicServer,
  type MockScriptItem,
  startMockAnthropicServer,
  textTurn,
  toolTurn,
} from "@agent-lattice/testing";
import { afterEach } from "vitest";
import { z } from "zod/v4";
import {
  type LangSmithReceiver,
  type ReceiverOptions,
  startLangSmithReceiver,
} from "./langsmith-receiver.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map(close => close()));
});

export async function mockModel(script: MockScriptItem[]): Promise<MockAnthropicServer> {
  const server = await startMockAnthropicServer({ script });
  closers.push(() => server.close());
  return server;
}

export async function receiver(options?: ReceiverOptions): Promise<LangSmithReceiver> {
  const started = await startLangSmithReceiver(options);
  closers.push(() => started.close());
  return started;
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
