/**
 * Structured output, both ways the SDK offers it:
 *  - `outputFormat` on a query: the provider is asked for JSON matching a JSON Schema (`output_config.format`); the
 *    final text comes back unchanged and the application parses it.
 *  - `outputSchema` on an agent: the model submits its answer through the injected `submit_output` tool, validated
 *    against the schema (a zod schema works directly) before the run ends; `result.structuredResult` is typed.
 *
 *   pnpm --filter @agent-lattice/examples structured-output   offline, against the embedded mock server
 *   DEEPSEEK_API_KEY=… / ANTHROPIC_API_KEY=…                  against a real provider
 */
import { pathToFileURL } from "node:url";
import { createBareAgent, SUBMIT_OUTPUT_TOOL_NAME } from "agent-lattice";
import { textTurn, toolTurn } from "agent-lattice/testing";
import { z } from "zod/v4";
import { heardBack, resolveTeamProvider } from "./team-provider.js";

const releaseSchema = z.object({
  version: z.string(),
  highlights: z.array(z.string()).min(1),
  breaking: z.boolean(),
});

export async function runStructuredOutputExample(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const provider = await resolveTeamProvider((role, request) => {
    if (role === "calculator") {
      // A provider honouring output_config.format answers with JSON only; say so when it was not asked.
      const format = (request.body.output_config as { format?: { type?: string } } | undefined)?.format;
      return textTurn(format?.type === "json_schema" ? '{"answer":4}' : "4 (no output format was requested)");
    }
    if (heardBack(request)) return textTurn("Submitted.");
    return toolTurn({
      name: SUBMIT_OUTPUT_TOOL_NAME,
      input: { version: "0.2.0", highlights: ["teams", "SQLite mailbox"], breaking: false },
    });
  }, env);
  write(`AgentLattice structured output example — provider: ${provider.label}\n\n`);
  const agent = (role: string, options: { outputSchema?: typeof releaseSchema } = {}) =>
    createBareAgent({
      apiKey: provider.apiKey,
      baseURL: provider.baseURL,
      model: provider.model,
      systemPrompt: `You are the ${role}.`,
      ...options,
    });
  try {
    // 1. outputFormat: JSON text matching a JSON Schema; parse it yourself.
    const answer = await agent("calculator").prompt("Return the answer to 2 + 2.", {
      stream: false,
      outputFormat: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: { answer: { type: "number" } },
          required: ["answer"],
          additionalProperties: false,
        },
      },
    });
    if (answer.is_error) {
      write(`outputFormat → ${answer.subtype}: ${answer.result}\n`); // a failed run's result says why
      return 1;
    }
    const parsed = JSON.parse(answer.result) as { answer: number };
    write(`outputFormat → text ${answer.result} → answer ${parsed.answer} (${typeof parsed.answer})\n`);

    // 2. outputSchema: a validated, typed value in result.structuredResult.
    const notes = await agent("release manager", { outputSchema: releaseSchema }).prompt(
      "Summarize release 0.2.0: it adds teams and the SQLite mailbox, nothing breaks.",
      { stream: false },
    );
    const release = notes.structuredResult as z.infer<typeof releaseSchema> | undefined;
    if (!release) {
      write(`outputSchema → no structured result (${notes.subtype}: ${notes.result})\n`);
      return 1;
    }
    write(
      `outputSchema → ${release.version}: ${release.highlights.join(", ")}; breaking: ${release.breaking}\n`,
    );
    return answer.subtype === "success" && notes.subtype === "success" ? 0 : 1;
  } finally {
    await provider.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runStructuredOutputExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
