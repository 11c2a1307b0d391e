// R4 on the real pipeline: langsmith's own RunTree and batching Client, pointed at a local HTTP receiver that
// speaks the endpoints the client uses. One query of a lead agent with a tool, a failing tool and a delegated
// child must arrive as one run tree: a chain root, llm runs with usage, tool runs (the failing one errored) and
// the child's chain nested under the tool run that called it.

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createCompositeContextTracer,
  createJsonlContextTracer,
  readContextTrace,
} from "@agent-lattice/core";
import { describe, expect, it } from "vitest";
import { createLangSmithContextTracer } from "../src/index.js";
import { leadWithToolAndChild, messageText, receiver } from "./helpers.js";
import type { ReceivedRun } from "./langsmith-receiver.js";

function byName(runs: ReceivedRun[], name: string, runType?: string): ReceivedRun {
  const found = runs.filter(run => run.name === name && (!runType || run.run_type === runType));
  expect(found, `one run named ${name}`).toHaveLength(1);
  return found[0]!;
}

describe.each([
  { endpoint: "/runs/multipart", multipart: true },
  { endpoint: "/runs/batch", multipart: false },
])("LangSmith run tree over $endpoint (R4)", ({ endpoint, multipart }) => {
  it("a query with a tool, a failing tool and a delegated child arrives as one tree", async () => {
    const ls = await receiver({ multipart });
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangSmithContextTracer({
      apiUrl: ls.url,
      apiKey: "ls-test-key",
      projectName: "agent-lattice-tests",
      tags: ["ci"],
      metadata: { environment: "test" },
    });

    const result = await lead.prompt("Why are there tides?", { tracer });
    await tracer.close!();

    expect(result.subtype).toBe("success");
    expect(ls.requests.some(request => request.path === endpoint)).toBe(true);
    expect(ls.requests.every(request => request.headers["x-api-key"] === "ls-test-key")).toBe(true);
    const runs = ls.list();
    // lead chain, 2 lead llm turns, 3 tool runs, researcher chain, 1 researcher llm turn.
    expect(runs.map(run => `${run.run_type}:${run.name}`).sort()).toEqual(
      [
        "chain:lead",
        "llm:lead-model",
        "llm:lead-model",
        "tool:lookup",
        "tool:broken",
        "tool:researcher",
        "chain:researcher",
        "llm:child-model",
      ].sort(),
    );
    // One trace; every run is ended.
    const root = byName(runs, "lead", "chain");
    expect(new Set(runs.map(run => run.trace_id))).toEqual(new Set([root.id]));
    expect(root.parent_run_id).toBeUndefined();
    for (const run of runs) expect(run.end_time, `${run.name} ended`).toBeDefined();
    expect(root.session_name).toBe("agent-lattice-tests");
    expect(root.tags).toEqual(["agent-lattice", "ci"]);
    expect(root.inputs).toEqual({ message: { role: "user", content: "Why are there tides?" } });
    expect(root.outputs).toMatchObject({
      subtype: "success",
      result: "Tides follow the moon.",
      num_turns: 2,
    });
    expect(root.error).toBeUndefined();

    // Nesting: lead turns and tools under the root; the child's chain under the tool run that called it.
    const toolRun = byName(runs, "researcher", "tool");
    const childChain = byName(runs, "researcher", "chain");
    const childLlm = byName(runs, "child-model");
    for (const run of [
      ...runs.filter(r => r.name === "lead-model"),
      byName(runs, "lookup"),
      byName(runs, "broken"),
    ]) {
      expect(run.parent_run_id).toBe(root.id);
    }
    expect(toolRun.parent_run_id).toBe(root.id);
    expect(childChain.parent_run_id).toBe(toolRun.id);
    expect(childLlm.parent_run_id).toBe(childChain.id);
    expect(childChain.dotted_order.startsWith(`${toolRun.dotted_order}.`)).toBe(true);

    // Errors: the failing tool is an errored tool run; the others are not.
    const broken = byName(runs, "broken");
    expect(broken.error).toContain("disk on fire");
    expect(broken.outputs).toMatchObject({ is_error: true });
    expect(byName(runs, "lookup")).toMatchObject({
      outputs: { content: "fact about tides", is_error: false },
    });
    expect(byName(runs, "lookup").inputs).toEqual({ input: { q: "tides" } });
    expect(byName(runs, "lookup").error).toBeUndefined();

    // Usage where LangSmith reads it: cache counts summed into input_tokens, detailed in input_token_details.
    const [firstTurn] = runs
      .filter(run => run.name === "lead-model")
      .sort((a, b) => Date.parse(String(a.start_time)) - Date.parse(String(b.start_time)));
    const expectedUsage = {
      input_tokens: 180,
      output_tokens: 20,
      total_tokens: 200,
      input_token_details: { cache_read: 50, cache_creation: 30 },
    };
    expect(firstTurn!.outputs?.usage_metadata).toEqual(expectedUsage);
    expect(firstTurn!.extra?.metadata?.usage_metadata).toEqual(expectedUsage);
    expect(firstTurn!.extra?.metadata).toMatchObject({
      ls_provider: "anthropic",
      ls_model_name: "lead-model",
    });
    const sent = firstTurn!.inputs?.messages as Array<{ role: string; content: unknown }>;
    expect(sent.map(message => [message.role, messageText(message)])).toEqual([
      ["user", "Why are there tides?"],
    ]);
    expect(firstTurn!.outputs?.message.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "tool_use", name: "researcher" })]),
    );
    // The last turn's inputs hold the whole history (it crosses to the worker once per run: history-refs.ts).
    const leadTurns = runs
      .filter(run => run.name === "lead-model")
      .sort((a, b) => Date.parse(String(a.start_time)) - Date.parse(String(b.start_time)));
    const lastSent = leadTurns.at(-1)!.inputs?.messages as Array<{ role: string; content: unknown }>;
    expect(lastSent).toHaveLength(1 + 2 * (leadTurns.length - 1));
    leadTurns.slice(0, -1).forEach((turn, i) => {
      const toolUses = (turn.outputs!.message.content as Array<{ type: string; id?: string }>).filter(
        block => block.type === "tool_use",
      );
      expect(lastSent[1 + 2 * i]!.role).toBe("assistant");
      for (const use of toolUses) expect(JSON.stringify(lastSent[1 + 2 * i]!.content)).toContain(use.id);
      expect(JSON.stringify(lastSent[2 + 2 * i]!.content)).toContain("tool_result");
    });
    expect(childLlm.outputs?.usage_metadata).toEqual({
      input_tokens: 40,
      output_tokens: 8,
      total_tokens: 48,
    });

    // Times: each run starts before it ends, children inside their parents.
    const time = (value: unknown) => (typeof value === "number" ? value : Date.parse(String(value)));
    for (const run of runs) expect(time(run.end_time)).toBeGreaterThanOrEqual(time(run.start_time));
    expect(time(childChain.start_time)).toBeGreaterThanOrEqual(time(toolRun.start_time));
    expect(time(childChain.end_time)).toBeLessThanOrEqual(time(toolRun.end_time));

    // Sessions: one thread (the root's session), each agent's own session as agent_session_id.
    const sessions = new Set(runs.map(run => run.extra?.metadata?.session_id));
    expect(sessions.size).toBe(1);
    expect(root.extra?.metadata?.agent_session_id).toBe(root.extra?.metadata?.session_id);
    expect(childChain.extra?.metadata?.agent_session_id).not.toBe(root.extra?.metadata?.agent_session_id);
    expect(childChain.extra?.metadata?.environment).toBe("test");
  });
});

describe("LangSmith ids correlate with the JSONL trace (R4)", () => {
  it("every chain run names its JSONL run_id, and every tool run its tool_use_id", async () => {
    const ls = await receiver();
    const dir = await mkdtemp(join(tmpdir(), "al-ls-jsonl-"));
    try {
      const path = join(dir, "trace.jsonl");
      const { lead } = await leadWithToolAndChild();
      const tracer = createCompositeContextTracer([
        createJsonlContextTracer({ path }),
        createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k" }),
      ]);
      await lead.prompt("Why are there tides?", { tracer });
      await tracer.close!();

      const events = readContextTrace(await readFile(path, "utf8"));
      const runIds = new Set(events.map(event => event.run_id));
      const chains = ls.list().filter(run => run.run_type === "chain");
      expect(new Set(chains.map(run => run.extra?.metadata?.agent_lattice_run_id))).toEqual(runIds);
      const toolUseIds = new Set(events.flatMap(event => (event.type === "tool_use" ? [event.data.id] : [])));
      const tools = ls.list().filter(run => run.run_type === "tool");
      expect(new Set(tools.map(run => run.extra?.metadata?.tool_use_id))).toEqual(toolUseIds);
      const child = chains.find(run => run.name === "researcher")!;
      expect(child.extra?.metadata?.agent_lattice_parent_run_id).toBe(
        chains.find(run => run.name === "lead")!.extra?.metadata?.agent_lattice_run_id,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
