// Spec sections "Agent Specs (Templates) And Sessions", "Typed delegation", "AgentLike Composition" and the
// agentTool parts of "Structured Output Via submit_output" (C22, C23, D1–D5). The snippets use no apiKey or
// baseURL, so ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL point the built-in client at the mock.
import { type AgentLike, agentTool, createAgent, defineAgent } from "agent-lattice";
import { type MockScriptItem, systemText, textTurn, toolTurn } from "agent-lattice/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { mockProvider, plainMessages, unmarked } from "./helpers.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

/** One mock serves the lead and the child; requests are told apart by the system prompt. */
async function provider(lead: MockScriptItem[], child: MockScriptItem[], childMarker: string) {
  const server = await mockProvider([]);
  server.respondWith(request => {
    const queue = (systemText(request.body) ?? "").includes(childMarker) ? child : lead;
    return queue.shift() ?? textTurn("(script exhausted)");
  });
  vi.stubEnv("ANTHROPIC_API_KEY", "test-key");
  vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
  const bodies = (who: "lead" | "child") =>
    server.requests
      .map(r => r.body)
      .filter(b => (systemText(b) ?? "").includes(childMarker) === (who === "child"));
  return { server, bodies };
}

describe("spec: Agent Specs (Templates) And Sessions (C23)", () => {
  it("registering the spec spawns a fresh session per call; a spawned session remembers", async () => {
    const { bodies } = await provider(
      [
        toolTurn({ name: "review", input: { task: "Audit change 1." } }),
        toolTurn({ name: "review", input: { task: "Audit change 2." } }),
        textTurn("Both reviewed."),
      ],
      [textTurn("LGTM 1"), textTurn("LGTM 2")],
      "senior code reviewer",
    );

    const reviewerSpec = defineAgent({
      name: "reviewer",
      model: "claude-sonnet-4-5",
      systemPrompt: "You are a senior code reviewer...",
    });

    // Register the spec: every tool call spawns a fresh session with no memory
    // of previous calls. This is the safe default for reuse.
    const lead = createAgent({
      model: "claude-sonnet-4-5",
      tools: [
        agentTool("review", reviewerSpec, {
          description: "Ask the reviewer to audit a change.",
        }),
      ],
    });

    // Register a spawned session instead when the target should remember earlier
    // tasks across calls — continuity is an explicit opt-in.
    const reviewSession = reviewerSpec.spawn();

    await lead.prompt("Review changes 1 and 2.");
    const childRequests = bodies("child");
    expect(childRequests.map(b => b.messages.length)).toEqual([1, 1]);
    const reviewTool = bodies("lead")[0]!.tools.find((t: { name: string }) => t.name === "review");
    expect(reviewTool.description).toBe(
      "Ask the reviewer to audit a change. Each call starts a fresh session with no memory of earlier calls, so every task must be self-contained.",
    );
    expect(agentTool("review", reviewSession).description).toContain(
      "one long-lived session that remembers earlier tasks",
    );
  });
});

describe("spec: agentTool + outputSchema (D2, D3)", () => {
  const reviewSchema = z.object({
    approved: z.boolean(),
    issues: z.array(z.string()),
  });

  it("the child submits via submit_output; the parent's ask returns the validated JSON (schema inherited)", async () => {
    const { bodies } = await provider(
      [
        toolTurn({ name: "review", input: { task: "Audit the auth change." } }),
        textTurn("Not approved: fix the null check."),
      ],
      [toolTurn({ name: "submit_output", input: { approved: false, issues: ["null check"] } })],
      "structured verdict",
    );

    const child = createAgent({
      model: "claude-sonnet-4-5",
      systemPrompt: "You review code and submit a structured verdict.",
      outputSchema: reviewSchema, // child submits via submit_output
    });

    const parent = createAgent({
      model: "claude-sonnet-4-6",
      tools: [
        agentTool("review", child, {
          description: "Ask the reviewer to audit a change.",
          // outputSchema is inherited from the child (0.21.0+); an explicit copy
          // must match the child's declaration or agentTool() throws.
        }),
      ],
    });

    const result = await parent.prompt("Should we merge?");
    expect(result.result).toBe("Not approved: fix the null check.");
    const toolResult = unmarked(bodies("lead")[1]!.messages.at(-1).content[0]);
    expect(toolResult).toEqual({
      type: "tool_result",
      tool_use_id: expect.any(String),
      content: '{"approved":false,"issues":["null check"]}',
    });
    expect(bodies("lead")[0]!.tools.find((t: { name: string }) => t.name === "review").description).toContain(
      "It returns the target's validated structured output as JSON.",
    );
  });
});

describe("spec: Typed delegation (D5)", () => {
  it("judge: inputSchema + mapInput project the parent's arguments into the child prompt", async () => {
    const { bodies } = await provider(
      [
        toolTurn({
          name: "judge",
          input: { caseSummary: "Bike theft.", documents: [{ title: "Police report", content: "…" }] },
        }),
        textTurn("The judge found the defendant liable."),
      ],
      [toolTurn({ name: "submit_output", input: { liable: true, reasoning: "Report is conclusive." } })],
      "judge a case",
    );
    const verdictSchema = z.object({ liable: z.boolean(), reasoning: z.string() });
    const renderJudgeTask = (caseSummary: string, documents: Array<{ title: string; content: string }>) =>
      `Case summary: ${caseSummary}\n${documents.map(d => `## ${d.title}\n${d.content}`).join("\n")}`;

    const judge = createAgent({
      model: "claude-sonnet-4-5",
      systemPrompt: "You judge a case and submit a structured verdict.",
      outputSchema: verdictSchema,
    });

    const judgeTool = agentTool("judge", judge, {
      description: "Judge a case from its summary and documents.",
      inputSchema: z.object({
        caseSummary: z.string(),
        documents: z.array(z.object({ title: z.string(), content: z.string() })),
      }),
      mapInput: input => renderJudgeTask(input.caseSummary, input.documents),
    });

    const lead = createAgent({ model: "claude-sonnet-4-6", tools: [judgeTool] });
    await lead.prompt("Decide the bike theft case.");
    expect(plainMessages(bodies("child")[0]!.messages)[0].content).toBe(
      "Case summary: Bike theft.\n## Police report\n…",
    );
    expect(bodies("lead")[1]!.messages.at(-1).content[0].content).toBe(
      '{"liable":true,"reasoning":"Report is conclusive."}',
    );
    const schema = bodies("lead")[0]!.tools.find((t: { name: string }) => t.name === "judge").input_schema;
    expect(Object.keys(schema.properties)).toEqual(["caseSummary", "documents"]); // ask-only: no mode, no workspaceGrants
  });
});

describe("spec: AgentLike Composition (C22)", () => {
  it("Agent satisfies AgentLike; interrupt() returns false when idle", () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "test-key");
    const agent: AgentLike = createAgent({ model: "claude-sonnet-4-6" });
    expect(agent.interrupt()).toBe(false);
    expect(typeof agent.query).toBe("function");
    expect(typeof agent.prompt).toBe("function");
  });
});
