/**
 * Delegation: a parent agent calls a reviewer agent as a tool (`agentTool`). The delegation is typed — the
 * parent's arguments are validated against `inputSchema` and turned into the child's prompt by `mapInput` — and
 * the reviewer submits a verdict that its `outputSchema` validates; the parent gets that JSON as the tool result.
 *
 *   pnpm --filter @agent-lattice/examples delegation   offline, against the embedded mock server
 *   DEEPSEEK_API_KEY=… / ANTHROPIC_API_KEY=…           against a real provider
 */
import { pathToFileURL } from "node:url";
import { agentTool, createBareAgent, SUBMIT_OUTPUT_TOOL_NAME } from "agent-lattice";
import { textTurn, toolTurn } from "agent-lattice/testing";
import { z } from "zod/v4";
import { heardBack, lastUserText, resolveTeamProvider } from "./team-provider.js";

const verdictSchema = z.object({
  verdict: z.enum(["approve", "request_changes"]),
  reasons: z.array(z.string()).min(1),
});

const CHANGE = "Rename getUser() to fetchUser() across the codebase; callers updated; no behaviour change.";

export async function runDelegationExample(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const provider = await resolveTeamProvider((role, request) => {
    if (role === "reviewer") {
      if (heardBack(request)) return textTurn("Verdict submitted.");
      return toolTurn({
        name: SUBMIT_OUTPUT_TOOL_NAME,
        input: { verdict: "approve", reasons: ["pure rename", "all callers updated"] },
      });
    }
    if (!heardBack(request))
      return toolTurn(
        { name: "review", input: { change: CHANGE, risk: "low" } },
        { text: "Asking the reviewer." },
      );
    const verdict = /"verdict":"(\w+)"/.exec(lastUserText(request))?.[1] ?? "unknown";
    return textTurn(`The reviewer says: ${verdict}. Merging.`);
  }, env);
  write(`AgentLattice delegation example — provider: ${provider.label}\n\n`);
  const agent = (role: string, extra: Partial<Parameters<typeof createBareAgent>[0]> = {}) =>
    createBareAgent({
      apiKey: provider.apiKey,
      baseURL: provider.baseURL,
      model: provider.model,
      systemPrompt: `You are the ${role}.`,
      maxTurns: 4,
      ...extra,
    });
  const reviewer = agent("reviewer", { outputSchema: verdictSchema });
  const review = agentTool("review", reviewer, {
    description: "Ask the reviewer to audit a change; returns its verdict as JSON.",
    inputSchema: z.object({ change: z.string(), risk: z.enum(["low", "medium", "high"]) }),
    mapInput: ({ change, risk }) => `Review this change (risk: ${risk}) and submit a verdict.\n\n${change}`,
  });
  const lead = agent("lead engineer", { tools: [review] });
  try {
    for await (const message of lead.query(`Should we merge this? ${CHANGE}`, { stream: false })) {
      if (message.type === "assistant") {
        for (const block of message.message.content)
          if (block.type === "tool_use") write(`[lead → ${block.name}] ${JSON.stringify(block.input)}\n`);
      } else if (message.type === "user") {
        for (const block of message.message.content) write(`  ← ${String(block.content)}\n`);
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
  runDelegationExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
