/**
 * Custom tool: the spec's calculator. `tool(name, description, schema, handler)` — a zod schema gives the model
 * its JSON Schema and validates the model's input before the handler runs; the handler's `content` goes back to the
 * model as the tool result.
 *
 *   pnpm --filter @agent-lattice/examples custom-tool   offline, against the embedded mock server
 *   DEEPSEEK_API_KEY=… / ANTHROPIC_API_KEY=…            against a real provider
 */
import { pathToFileURL } from "node:url";
import { createBareAgent, tool } from "agent-lattice";
import { textTurn, toolTurn } from "agent-lattice/testing";
import { z } from "zod/v4";
import { resolveTeamProvider } from "./team-provider.js";

/** Arithmetic only: digits, + - * / ( ) . and spaces; anything else is refused before it is evaluated. */
const ARITHMETIC = /^[\d\s+\-*/().]+$/;

export const calculator = tool(
  "calculator",
  "Evaluate a simple arithmetic expression",
  z.object({ expr: z.string().describe("e.g. 2+2 or (3*4)/2") }),
  async ({ expr }) => {
    if (!ARITHMETIC.test(expr))
      return {
        content: `Not arithmetic: ${JSON.stringify(expr)}. Use digits and + - * / ( ).`,
        isError: true,
      };
    return { content: String(Function(`"use strict"; return (${expr});`)()) };
  },
);

export async function runCustomToolExample(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const provider = await resolveTeamProvider((_role, request) => {
    const last = request.body.messages.at(-1)?.content;
    const result = Array.isArray(last) ? last.find(block => block.type === "tool_result") : undefined;
    if (!result) return toolTurn({ name: "calculator", input: { expr: "2+2" } });
    return textTurn(
      `2 + 2 = ${typeof result.content === "string" ? result.content : JSON.stringify(result.content)}.`,
    );
  }, env);
  write(`AgentLattice custom tool example — provider: ${provider.label}\n\n`);
  const agent = createBareAgent({
    apiKey: provider.apiKey,
    baseURL: provider.baseURL,
    model: provider.model,
    systemPrompt: "You are the calculator user. Use the calculator tool for arithmetic.",
    tools: [calculator],
  });
  try {
    for await (const message of agent.query("What is 2+2?", { stream: false })) {
      if (message.type === "assistant") {
        for (const block of message.message.content)
          if (block.type === "tool_use") write(`[${block.name}] ${JSON.stringify(block.input)}\n`);
      } else if (message.type === "user") {
        for (const block of message.message.content) write(`  → ${String(block.content)}\n`);
      } else if (message.type === "result") {
        write(`[result: ${message.subtype}] ${message.result}\n`);
        return message.subtype === "success" ? 0 : 1;
      }
    }
    return 1;
  } finally {
    await provider.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runCustomToolExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
