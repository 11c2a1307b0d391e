// Benchmark: the token bill of an agent loop with prompt caching on (the default) vs off, against the mock
// server's prompt-cache simulation (@agent-lattice/testing, promptCache: true). Billed input-token equivalents
// use Anthropic's multipliers: input + 1.25 × cache writes (5-minute lifetime) + 0.1 × cache reads.
// Token counts are the mock's deterministic estimate (JSON characters / 4), so every figure is exact for the
// scenario; the spread is shown by varying the scenario (tool-result size, loop length), not by repeating it.

import { createTeam, teamMember } from "@agent-lattice/team";
import {
  agentTool,
  createBareAgent,
  defineAgent,
  startMockAnthropicServer,
  systemText,
  textTurn,
  tool,
  toolTurn,
} from "agent-lattice";
import { z } from "zod/v4";

const MODEL = "claude-sonnet-4-5"; // 1,024-token minimum cacheable prefix in the simulation
const WRITE = 1.25;
const READ = 0.1;

/** Deterministic filler text of about `tokens` estimated tokens (4 characters each). */
function filler(label, tokens) {
  const sentence = `${label}: follow the documented procedure, cite the source, keep the answer short. `;
  return sentence.repeat(Math.ceil((tokens * 4) / sentence.length)).slice(0, tokens * 4);
}

/** `count` tools whose definitions add up to about `tokens` estimated tokens; the first is the one called. */
function toolset(prefix, count, tokens, resultTokens) {
  return Array.from({ length: count }, (_, i) =>
    tool(
      `${prefix}_${i}`,
      filler(`${prefix} tool ${i}`, Math.floor(tokens / count) - 40),
      z.object({ query: z.string().describe("What to look up") }),
      async ({ query }) => ({ content: `${query}\n${filler("result", resultTokens)}` }),
    ),
  );
}

function billed(usage) {
  return (
    usage.input_tokens + WRITE * usage.cache_creation_input_tokens + READ * usage.cache_read_input_tokens
  );
}

function toolResultsIn(body) {
  return body.messages.filter(
    m => m.role === "user" && Array.isArray(m.content) && m.content[0]?.type === "tool_result",
  ).length;
}

/**
 * A `turns`-request tool loop: the model calls the first tool until it has seen turns − 1 results, then answers.
 * Returns the query's summed usage.
 */
async function toolLoop({ turns, prefixTokens, resultTokens, promptCaching }) {
  const server = await startMockAnthropicServer({
    promptCache: true,
    respond: request => {
      const seen = toolResultsIn(request.body);
      return seen < turns - 1
        ? toolTurn({ name: "lookup_0", input: { query: `item ${seen}` } }, { text: "Next item." })
        : textTurn("All items checked.");
    },
  });
  try {
    const agent = createBareAgent({
      apiKey: "bench",
      baseURL: server.url,
      model: MODEL,
      systemPrompt: filler("house rules", Math.round(prefixTokens * 0.6)),
      tools: toolset("lookup", 6, Math.round(prefixTokens * 0.4), resultTokens),
      maxTurns: turns + 1,
      promptCaching,
    });
    const result = await agent.prompt("Check every item on the list.");
    if (result.subtype !== "success" || result.num_turns !== turns) throw new Error(JSON.stringify(result));
    return { usage: result.usage, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

/**
 * Delegation: a parent loop of `parentTurns` requests that asks a child spec (a fresh session per call) for each
 * item; every child runs its own `childTurns`-request tool loop. Parent and child usage are summed in the
 * parent's result.
 */
async function delegation({ parentTurns, childTurns, resultTokens, promptCaching }) {
  const CHILD = "You are the research assistant.";
  const server = await startMockAnthropicServer({
    promptCache: true,
    respond: request => {
      const seen = toolResultsIn(request.body);
      if ((systemText(request.body) ?? "").startsWith(CHILD)) {
        return seen < childTurns - 1
          ? toolTurn({ name: "source_0", input: { query: `source ${seen}` } })
          : textTurn(`Findings: ${filler("finding", 150)}`);
      }
      return seen < parentTurns - 1
        ? toolTurn({ name: "researcher", input: { task: `Research item ${seen} and report findings.` } })
        : textTurn("Report complete.");
    },
  });
  try {
    const researcher = defineAgent({
      apiKey: "bench",
      baseURL: server.url,
      model: MODEL,
      name: "researcher",
      systemPrompt: `${CHILD} ${filler("research rules", 2500)}`,
      tools: toolset("source", 4, 1500, resultTokens),
      promptCaching,
    });
    const parent = createBareAgent({
      apiKey: "bench",
      baseURL: server.url,
      model: MODEL,
      systemPrompt: filler("lead rules", 3500),
      tools: [agentTool("researcher", researcher), ...toolset("notes", 3, 1000, resultTokens)],
      maxTurns: parentTurns + 1,
      promptCaching,
    });
    const result = await parent.prompt("Research every item and write the report.");
    if (result.subtype !== "success") throw new Error(JSON.stringify(result));
    return { usage: result.usage, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

/**
 * A three-member team: a lead that, for `leadTurns − 1` turns, hands one task to each of two members (mailbox
 * handoffs, both in one batch) and then answers; each member runs its own `memberTurns`-request tool loop per task.
 * Members are live sessions, so their histories grow across tasks too. The team's result sums every member's usage.
 */
async function team({ leadTurns, memberTurns, resultTokens, promptCaching }) {
  const LEAD = "You lead the research team.";
  const MEMBERS = ["analyst", "writer"];
  const server = await startMockAnthropicServer({
    promptCache: true,
    respond: request => {
      const system = systemText(request.body) ?? "";
      const seen = toolResultsIn(request.body);
      const member = MEMBERS.find(name => system.startsWith(`You are the ${name}.`));
      if (member) {
        // Count this task's tool results only: the member's earlier tasks are in its history too.
        const lastPrompt = request.body.messages.findLastIndex(
          m => m.role === "user" && !(Array.isArray(m.content) && m.content[0]?.type === "tool_result"),
        );
        const inTask = toolResultsIn({ messages: request.body.messages.slice(lastPrompt) });
        return inTask < memberTurns - 1
          ? toolTurn({ name: `${member}_0`, input: { query: `source ${inTask}` } })
          : textTurn(`Findings: ${filler("finding", 150)}`);
      }
      if (!system.startsWith(LEAD)) throw new Error("unexpected agent");
      return seen < leadTurns - 1
        ? toolTurn(
            MEMBERS.map(name => ({ name, input: { mode: "handoff", task: `Task ${seen} for ${name}.` } })),
          )
        : textTurn("Team report complete.");
    },
  });
  try {
    const agent = (systemPrompt, tools) =>
      createBareAgent({
        apiKey: "bench",
        baseURL: server.url,
        model: MODEL,
        systemPrompt,
        tools,
        promptCaching,
      });
    const crew = createTeam({
      name: "research",
      lead: agent(`${LEAD} ${filler("lead rules", 3500)}`, toolset("notes", 3, 1000, resultTokens)),
      members: MEMBERS.map(name =>
        teamMember({
          name,
          role: "executor",
          agent: agent(
            `You are the ${name}. ${filler(`${name} rules`, 2500)}`,
            toolset(name, 4, 1500, resultTokens),
          ),
        }),
      ),
      runner: { maxConcurrentWorkItems: 2 },
    });
    const result = await crew.prompt("Run the research programme and write the report.");
    if (result.subtype !== "success") throw new Error(JSON.stringify(result));
    return { usage: result.usage, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

async function compare(name, run, params) {
  const on = await run({ ...params, promptCaching: true });
  const off = await run({ ...params, promptCaching: false });
  const row = {
    scenario: name,
    ...params,
    requests: on.requests,
    promptTokens: off.usage.input_tokens,
    billedOn: Math.round(billed(on.usage)),
    billedOff: Math.round(billed(off.usage)),
    ratio: +(billed(on.usage) / billed(off.usage)).toFixed(3),
    on: {
      input: on.usage.input_tokens,
      cacheWrites: on.usage.cache_creation_input_tokens,
      cacheReads: on.usage.cache_read_input_tokens,
    },
  };
  return row;
}

export async function runPromptCaching() {
  const loop = await compare("20-turn tool loop", toolLoop, {
    turns: 20,
    prefixTokens: 8000,
    resultTokens: 500,
  });
  const spread = [];
  for (const [turns, resultTokens] of [
    [10, 500],
    [40, 500],
    [20, 250],
    [20, 1000],
  ]) {
    const row = await compare("tool loop", toolLoop, { turns, prefixTokens: 8000, resultTokens });
    spread.push({ turns, resultTokens, ratio: row.ratio });
  }
  const delegated = await compare("delegation (parent + child spec)", delegation, {
    parentTurns: 10,
    childTurns: 4,
    resultTokens: 500,
  });
  const ratios = [loop.ratio, ...spread.map(row => row.ratio)];
  const report = {
    benchmark: "prompt caching: billed input-token equivalents, on (default) vs off",
    billing: "input + 1.25 × cache writes + 0.1 × cache reads (Anthropic's 5-minute-cache multipliers)",
    tokenEstimate:
      "mock server: ceil(JSON characters / 4) per block; minimum cacheable prefix 1,024 (Sonnet 4.5)",
    toolLoop: loop,
    toolLoopSpread: { min: Math.min(...ratios), max: Math.max(...ratios), variants: spread },
    delegation: delegated,
    team: await compare("three-member team (lead + 2 members, mailbox handoffs)", team, {
      leadTurns: 6,
      memberTurns: 4,
      resultTokens: 500,
    }),
    target: "tool loop: on <= 0.25 × off",
  };
  console.log(JSON.stringify(report, null, 2));
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) await runPromptCaching();
