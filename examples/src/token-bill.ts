/**
 * Reading the token bill: a tool loop with prompt caching on (the default), one line per model request with its
 * uncached input, cache writes and cache reads, then the total in billed input-token equivalents.
 *
 *   pnpm --filter @agent-lattice/examples token-bill       offline: the mock server's prompt-cache simulation,
 *                                                          with the same loop run uncached for comparison
 *   ANTHROPIC_API_KEY=… pnpm --filter @agent-lattice/examples token-bill   against Anthropic (caching on only)
 */
import { pathToFileURL } from "node:url";
import {
  createBareAgent,
  defineContextTracer,
  type PromptCaching,
  type ReportedUsage,
  tool,
} from "agent-lattice";
import { startMockAnthropicServer, textTurn, toolTurn } from "agent-lattice/testing";
import { z } from "zod/v4";

const ITEMS = 6;
/** A stable prefix worth caching: long house rules (a real agent's prompt and tools are often 5–10k tokens). */
const SYSTEM_PROMPT = `You check inventory records one item at a time with the lookup tool, then summarize.\n\n${"House rule: quote the record verbatim, flag anything missing, never guess a value. ".repeat(80)}`;

const lookup = tool(
  "lookup",
  "Look up one inventory record by item number.",
  z.object({ item: z.number().int() }),
  async ({ item }) => ({
    content: `Record ${item}: ${"in stock, shelf B, last counted this week. ".repeat(30)}`,
  }),
);

/** input + 1.25 × cache writes + 0.1 × cache reads: what the input side costs, in base-input-token units. */
export function billed(usage: ReportedUsage): number {
  return (
    (usage.input_tokens ?? 0) +
    1.25 * (usage.cache_creation_input_tokens ?? 0) +
    0.1 * (usage.cache_read_input_tokens ?? 0)
  );
}

async function runLoop(
  connection: { apiKey: string; baseURL: string | undefined; model: string },
  promptCaching: PromptCaching,
  write: (text: string) => void,
): Promise<number> {
  const tracer = defineContextTracer({
    onEvent(event) {
      if (event.type !== "assistant_message") return;
      const usage = event.data.usage as ReportedUsage;
      write(
        `  request ${String(event.data.turn).padStart(2)}: input ${String(usage.input_tokens ?? 0).padStart(6)}` +
          `  cache write ${String(usage.cache_creation_input_tokens ?? 0).padStart(6)}` +
          `  cache read ${String(usage.cache_read_input_tokens ?? 0).padStart(6)}\n`,
      );
    },
  });
  const agent = createBareAgent({
    ...connection,
    systemPrompt: SYSTEM_PROMPT,
    tools: [lookup],
    maxTurns: ITEMS + 2,
    tracer,
    promptCaching,
  });
  const result = await agent.prompt(`Check items 1 to ${ITEMS}, one lookup per response, then summarize.`);
  const total = billed(result.usage);
  const outcome = result.is_error ? `${result.subtype}: ${result.result}` : result.subtype; // a failure says why
  write(`  total: ${Math.round(total)} billed input-token equivalents (${outcome})\n`);
  return total;
}

export async function runTokenBill(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ on: number; off?: number }> {
  if (env.ANTHROPIC_API_KEY) {
    const connection = {
      apiKey: env.ANTHROPIC_API_KEY,
      baseURL: env.ANTHROPIC_BASE_URL,
      model: env.AGENT_LATTICE_MODEL ?? "claude-sonnet-4-6",
    };
    write("Prompt caching on (Anthropic):\n");
    return { on: await runLoop(connection, true, write) };
  }
  // Offline: a model that looks items up one by one, over a mock that simulates the provider's cache.
  const server = await startMockAnthropicServer({
    promptCache: true,
    respond: request => {
      const seen = request.body.messages.filter(
        (m: { role: string; content: unknown }) => m.role === "user" && Array.isArray(m.content),
      ).length;
      return seen < ITEMS
        ? toolTurn({ name: "lookup", input: { item: seen + 1 } })
        : textTurn(`All ${ITEMS} items are in stock on shelf B.`);
    },
  });
  try {
    const connection = { apiKey: "offline", baseURL: server.url, model: "claude-sonnet-4-5" };
    write("Prompt caching on (the default), offline simulation:\n");
    const on = await runLoop(connection, true, write);
    write("Prompt caching off:\n");
    const off = await runLoop(connection, false, write);
    write(`On costs ${(on / off).toFixed(2)} × off.\n`);
    return { on, off };
  } finally {
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runTokenBill();
