// A real team run to look at: @agent-lattice/team's createTeam() with a lead and three members — a researcher with a
// tool, a reviewer the lead asks, and a nested "docs" team (its own lead and a writer whose model call fails) —
// against @agent-lattice/testing's mock Anthropic server, traced by createJsonlContextTracer passed per query
// (team.query(prompt, { tracer })). The lead hands off to the researcher and the docs team in one batch, reads
// their reports, asks the reviewer, and answers. The tests assert the viewer against this trace, so what they check
// is what a team really writes. Token counts are scripted so totals are known exactly (TEAM_USAGE).
import { createBareAgent, createJsonlContextTracer, tool } from "@agent-lattice/core";
import { createTeam, teamMember } from "@agent-lattice/team";
import { overloaded, startMockAnthropicServer, textTurn, toolTurn } from "@agent-lattice/testing";
import { z } from "zod/v4";

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const usage = (input, output, write = 0, read = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: write,
  cache_read_input_tokens: read,
});

/** Scripted usage of every model turn that returns one (the writer's only call fails: it has none). */
export const TEAM_USAGE = {
  lead1: usage(2210, 143, 1800, 0),
  lead2: usage(640, 88, 0, 1800),
  lead3: usage(910, 121, 0, 1800),
  researcher1: usage(820, 45),
  researcher2: usage(1130, 152),
  docsLead1: usage(700, 60),
  docsLead2: usage(540, 73),
  reviewer1: usage(980, 97),
};

export const TEAM_PROMPT = "Plan the notes API: find what exists, and get the docs started.";
export const TEAM_RESEARCH_TASK = "Find the existing note routes and their storage.";
export const TEAM_DOCS_TASK = "Draft the API reference page for notes.";
export const TEAM_REVIEW_TASK = "Check the research findings for gaps.";
export const TEAM_FINDINGS =
  "Notes live in src/notes/store.ts (SQLite); GET /notes exists, POST /notes does not.";
export const TEAM_DOCS_ANSWER =
  "The writer failed (the model was overloaded); the reference page is not drafted yet.";
export const TEAM_REVIEW = "The findings miss pagination on GET /notes; otherwise complete.";
export const TEAM_ANSWER =
  "Plan: add POST /notes on the SQLite store, add pagination to GET /notes; the docs page is still to be written.";

/** The tool-use ids the lead's turns use, so tests can find the calls. */
export const TEAM_CALLS = {
  research: "toolu_handoff_research",
  docs: "toolu_handoff_docs",
  review: "toolu_ask_review",
};

/**
 * Runs the team and writes its trace to `path`. Returns the team's result message.
 */
export async function recordTeamTrace(path) {
  const scripts = {
    "You lead engineering": [
      toolTurn(
        [
          {
            name: "researcher",
            input: { mode: "handoff", task: TEAM_RESEARCH_TASK },
            id: TEAM_CALLS.research,
          },
          { name: "docs", input: { mode: "handoff", task: TEAM_DOCS_TASK }, id: TEAM_CALLS.docs },
        ],
        {
          text: "I'll hand the research and the docs off in parallel.",
          usage: TEAM_USAGE.lead1,
          delayMs: 40,
        },
      ),
      toolTurn(
        { name: "reviewer", input: { mode: "ask", task: TEAM_REVIEW_TASK }, id: TEAM_CALLS.review },
        { text: "Research is in; docs failed. Let me get the findings reviewed.", usage: TEAM_USAGE.lead2 },
      ),
      textTurn(TEAM_ANSWER, { usage: TEAM_USAGE.lead3, delayMs: 30 }),
    ],
    "You research": [
      toolTurn(
        { name: "grep", input: { pattern: "notes", path: "src" }, id: "toolu_grep_notes" },
        { usage: TEAM_USAGE.researcher1, delayMs: 25 },
      ),
      textTurn(TEAM_FINDINGS, { usage: TEAM_USAGE.researcher2, delayMs: 35 }),
    ],
    "You lead the docs": [
      toolTurn(
        { name: "writer", input: { mode: "handoff", task: "Write docs/api/notes.md from the route list." } },
        { usage: TEAM_USAGE.docsLead1 },
      ),
      textTurn(TEAM_DOCS_ANSWER, { usage: TEAM_USAGE.docsLead2 }),
    ],
    "You write documentation": [overloaded()],
    "You review": [textTurn(TEAM_REVIEW, { usage: TEAM_USAGE.reviewer1, delayMs: 20 })],
  };
  const server = await startMockAnthropicServer();
  server.respondWith(request => {
    // Each agent is told apart by its system prompt (a string, or text blocks when prompt caching marks it).
    const system = JSON.stringify(request.body.system ?? "");
    const key = Object.keys(scripts).find(marker => system.includes(marker));
    const next = key ? scripts[key].shift() : undefined;
    if (!next) throw new Error(`team demo: no scripted reply for ${system.slice(0, 80)}`);
    return next;
  });

  // Agents as the team docs make them: unnamed, so the trace's sources say "agent" and only the team knows who is who.
  const agents = [];
  const agent = (systemPrompt, extra = {}) => {
    const made = createBareAgent({
      apiKey: "test",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      maxRetries: 0,
      systemPrompt,
      ...extra,
    });
    agents.push(made);
    return made;
  };
  const grep = tool(
    "grep",
    "Searches files.",
    z.object({ pattern: z.string(), path: z.string() }),
    async () => {
      await sleep(20);
      return {
        content: "src/notes/routes.ts:3: router.get('/notes', list)\nsrc/notes/store.ts:1: import Database",
      };
    },
  );
  const docs = createTeam({
    name: "docs",
    lead: agent("You lead the docs team. Hand writing tasks to the writer."),
    members: [
      teamMember({ name: "writer", role: "executor", agent: agent("You write documentation pages.") }),
    ],
  });
  const engineering = createTeam({
    name: "engineering",
    lead: agent("You lead engineering work. Hand research to the researcher and docs to the docs team."),
    members: [
      teamMember({
        name: "researcher",
        role: "executor",
        focus: "Find what the code does today",
        agent: agent("You research the codebase and report concise findings.", { tools: [grep] }),
      }),
      teamMember({ name: "reviewer", role: "reviewer", agent: agent("You review findings for gaps.") }),
      teamMember({ name: "docs", role: "head", focus: "Own the documentation", agent: docs }),
    ],
  });
  const tracer = createJsonlContextTracer({ path });
  try {
    let result;
    for await (const event of engineering.query(TEAM_PROMPT, { tracer }))
      if (event.type === "result") result = event;
    return result;
  } finally {
    await tracer.close();
    await engineering.close();
    await docs.close();
    for (const made of agents) await made.close();
    await server.close();
  }
}
