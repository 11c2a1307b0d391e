// The run tree the viewer draws (issue 17): runs → turns → tool calls → delegated runs, nested by parent_run_id
// and parent_tool_use_id; unknown event types as generic rows; totals; hostile input survives (team runs:
// team-model.test.ts).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentTool, createBareAgent, createJsonlContextTracer, readContextTrace } from "@agent-lattice/core";
import {
  type MockScriptItem,
  startMockAnthropicServer,
  textTurn,
  toolTurn,
  unauthorized,
} from "@agent-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ANSWER, DEMO_USAGE, recordDemoTrace } from "../scripts/demo-trace.mjs";
import { labelOf, searchTextOf } from "../src/model/describe.js";
import type { TraceEvent } from "../src/model/trace-event.js";
import {
  buildTraceModel,
  type RunNode,
  type ToolNode,
  type TreeNode,
  type TurnNode,
} from "../src/model/trace-model.js";
import { visibleRows } from "../src/model/visible-rows.js";
import { runEvents } from "./support/events.js";

const shape = (node: TreeNode): unknown => {
  const name =
    node.kind === "run"
      ? `run ${node.source}`
      : node.kind === "turn"
        ? `turn ${node.turn}`
        : node.kind === "tool"
          ? `tool ${node.name}`
          : node.kind === "member"
            ? `member ${node.member} ${node.status}`
            : `event ${node.type}`;
  return node.children.length ? { [name]: node.children.map(shape) } : name;
};

describe("a real run: lead with tools and a delegated reviewer (R2)", () => {
  let dir: string;
  let events: TraceEvent[];
  let resultUsage: Record<string, number>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "al-viewer-model-"));
    const path = join(dir, "trace.jsonl");
    const result = await recordDemoTrace(path);
    resultUsage = result.usage;
    events = readContextTrace(await readFile(path, "utf8")) as TraceEvent[];
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("nests turns, their tool calls, and the delegated run under the call that started it", () => {
    const model = buildTraceModel(events);
    expect(model.roots.map(shape)).toEqual([
      {
        "run lead": [
          { "turn 1": ["tool read_file", "tool run_tests"] },
          { "turn 2": [{ "tool reviewer": [{ "run reviewer": [{ "turn 1": ["tool grep"] }, "turn 2"] }] }] },
          "turn 3",
        ],
      },
    ]);
    const call = model.nodes.get(`tool:${model.roots[0]!.runId}:toolu_review`) as ToolNode;
    expect(call.toolKind).toBe("agent_tool");
    const child = call.children[0] as RunNode;
    expect(child.parentToolUseId).toBe("toolu_review");
    expect(child.depth).toBe(3);
  });

  it("sums tokens per turn and in total (input, output, cache writes, cache reads)", () => {
    const model = buildTraceModel(events);
    const turns = [...model.nodes.values()].filter((node): node is TurnNode => node.kind === "turn");
    expect(turns.map(turn => turn.usage)).toEqual(
      expect.arrayContaining(Object.values(DEMO_USAGE).map(usage => expect.objectContaining(usage))),
    );
    const sum = (key: keyof (typeof DEMO_USAGE)["lead1"]) =>
      Object.values(DEMO_USAGE).reduce((total, usage) => total + usage[key], 0);
    expect(model.totals).toMatchObject({
      runs: 2,
      turns: 5,
      toolCalls: 4,
      input_tokens: sum("input_tokens"),
      output_tokens: sum("output_tokens"),
      cache_creation_input_tokens: sum("cache_creation_input_tokens"),
      cache_read_input_tokens: sum("cache_read_input_tokens"),
    });
    // The lead's result counts its delegated run's tokens too: the viewer's total agrees with it.
    expect(model.totals.input_tokens).toBe(resultUsage.input_tokens);
    expect(model.roots[0]!.usage.input_tokens).toBe(
      DEMO_USAGE.lead1.input_tokens + DEMO_USAGE.lead2.input_tokens + DEMO_USAGE.lead3.input_tokens,
    );
  });

  it("marks the failed tool call as an error with its first line, and times every node", () => {
    const model = buildTraceModel(events);
    const tests = [...model.nodes.values()].find(node => node.kind === "tool" && node.name === "run_tests")!;
    expect(tests.error).toEqual({ name: "tool error", message: "FAIL cart.test.ts" });
    expect(model.totals.errors).toBe(1);
    for (const node of model.nodes.values()) {
      expect(Number.isFinite(node.start), node.id).toBe(true);
      expect(node.end, node.id).toBeGreaterThanOrEqual(node.start);
    }
    const last = model.roots[0]!.children.at(-1)!;
    expect(labelOf(last)).toBe(`turn 3: ${DEMO_ANSWER.slice(0, 119)}…`);
  });
});

describe("nesting from the envelope", () => {
  it("concurrent children of one run nest under their own calls", () => {
    const parent = runEvents("p", "lead");
    parent.start();
    parent.turn(1, [
      { type: "tool_use", id: "a", name: "helper", input: { task: "A" } },
      { type: "tool_use", id: "b", name: "helper", input: { task: "B" } },
    ]);
    parent.toolUse(1, "a", "helper");
    parent.toolUse(1, "b", "helper");
    const childB = runEvents("cb", "helper", { parent: "p", parentToolUseId: "b" });
    childB.start("task B");
    const childA = runEvents("ca", "helper", { parent: "p", parentToolUseId: "a" });
    childA.start("task A");
    parent.toolResult(1, "b", "helper", "B done", { kind: "agent_tool" });
    parent.toolResult(1, "a", "helper", "A done", { kind: "agent_tool" });
    const model = buildTraceModel([...childB.events, ...parent.events, ...childA.events]);
    const runUnder = (id: string) => (model.nodes.get(`tool:p:${id}`)!.children[0] as RunNode).runId;
    expect(runUnder("a")).toBe("ca");
    expect(runUnder("b")).toBe("cb");
    expect(model.roots.map(run => run.runId)).toEqual(["p"]);
  });

  it("unknown event types (a newer SDK's) are generic rows of their run; child runs nest by parent_run_id", () => {
    const parent = runEvents("p", "planner");
    parent.emit("checkpoint", { subtype: "saved", store: "sqlite", step: 3 });
    const child = runEvents("c", "helper", {
      parent: "p",
      startMs: Date.parse("2026-01-01T00:00:00.015Z"),
    });
    child.start("help");
    child.turn(1, [{ type: "text", text: "helped" }]);
    child.result();
    parent.emit("checkpoint", { subtype: "restored", store: "sqlite", step: 3 }, 100);
    const model = buildTraceModel([...parent.events, ...child.events]);
    expect(model.roots.map(shape)).toEqual([
      { "run planner": ["event checkpoint", { "run helper": ["turn 1"] }, "event checkpoint"] },
    ]);
    expect(model.eventTypes).toEqual(["checkpoint"]);
    expect(model.sources).toEqual(["helper", "planner"]);
    expect(labelOf(model.roots[0]!.children[0]!)).toBe("checkpoint saved store=sqlite step=3");
  });

  it("a run whose parent is not in the files is a root, marked orphan", () => {
    const child = runEvents("c", "helper", { parent: "elsewhere", parentToolUseId: "x" });
    child.start();
    const model = buildTraceModel(child.events);
    expect(model.roots[0]).toMatchObject({ runId: "c", orphan: true });
  });
});

describe("errors", () => {
  it("an error event during a model request flags the turn; a failed result flags the run with its code", () => {
    const run = runEvents("r", "agent");
    run.start();
    run.emit("model_request", { turn: 1, model: "m", max_tokens: 1, tools: [], messages: [] });
    const error = { name: "APIError", message: "rate limited", code: "rate_limit_error", status: 429 };
    run.emit("error", { error, during: "model_request", turn: 1 });
    run.result({ subtype: "error_during_execution", is_error: true, result: "", error });
    const model = buildTraceModel(run.events);
    const [turn, errorRow] = model.roots[0]!.children;
    expect(turn).toMatchObject({ kind: "turn", error });
    expect(errorRow).toMatchObject({ kind: "event", type: "error", error });
    expect(model.roots[0]!.error).toEqual(error);
    // Three rows show it; it is one failure (issue 26).
    expect(model.totals.errors).toBe(1);
    expect(labelOf(errorRow!)).toBe("APIError rate_limit_error 429: rate limited");
    expect(searchTextOf(errorRow!)).toContain("rate_limit_error");
  });
});

describe("live and old files", () => {
  it("a run still going has open nodes: a turn awaiting its response, a running call", () => {
    const run = runEvents("r", "agent");
    run.start();
    run.turn(1, [{ type: "tool_use", id: "t", name: "slow", input: {} }]);
    run.toolUse(1, "t", "slow");
    const model = buildTraceModel(run.events);
    expect(model.roots[0]!.end).toBeUndefined();
    expect(model.nodes.get("tool:r:t")!.end).toBeUndefined();
    run.toolResult(1, "t", "slow", "ok");
    run.emit("model_request", { turn: 2, model: "m", max_tokens: 1, tools: [], messages: [] });
    const next = buildTraceModel(run.events);
    const turn2 = next.nodes.get("turn:r:2")!;
    expect(turn2.end).toBeUndefined();
    expect(labelOf(turn2)).toBe("turn 2 (awaiting response)");
  });

  it("version-0 files (upgraded by readContextTrace) put tool calls under the latest turn", () => {
    const run = runEvents("r", "agent", { v: 0 });
    run.emit("model_request", { model: "m", messages: [] });
    run.emit("assistant_message", {
      message: { role: "assistant", content: [] },
      usage: { input_tokens: 7 },
    });
    run.emit("tool_use", { id: "t", name: "read", input: {} });
    run.emit("tool_result", { type: "tool_result", tool_use_id: "t", name: "read", content: "x" });
    const text = run.events.map(({ v: _v, ...event }) => JSON.stringify(event)).join("\n");
    const model = buildTraceModel(readContextTrace(text) as TraceEvent[]);
    expect(model.roots.map(shape)).toEqual([{ "run agent": [{ "turn 0": ["tool read"] }] }]);
    expect(model.totals.input_tokens).toBe(7);
  });
});

describe("hostile or broken input", () => {
  it("a parent loop, duplicates and malformed fields render without throwing", () => {
    const a = runEvents("a", "x", { parent: "b" });
    a.start();
    const b = runEvents("b", "y", { parent: "a" });
    b.start();
    const weird = runEvents("w", "z");
    weird.emit("assistant_message", { turn: "one", usage: { input_tokens: "9" }, message: "nope" });
    weird.emit("tool_use", { id: 5, name: {} });
    weird.emit("tool_result", { tool_use_id: "ghost", content: { not: "blocks" }, is_error: "yes" });
    weird.emit("error", { error: "not an object" });
    weird.emit("result", null);
    const model = buildTraceModel([...a.events, ...a.events, ...b.events, ...weird.events]);
    expect(model.roots.map(run => run.runId).sort()).toEqual(["a", "b", "w"]);
    expect(model.totals.events).toBe(a.events.length + b.events.length + weird.events.length);
    for (const node of model.nodes.values()) {
      expect(() => labelOf(node)).not.toThrow();
      expect(() => searchTextOf(node)).not.toThrow();
    }
  });
});

describe("visible rows: collapse and filters", () => {
  const build = () => {
    const run = runEvents("p", "lead");
    run.start();
    run.turn(1, [{ type: "tool_use", id: "c", name: "helper", input: {} }]);
    run.toolUse(1, "c", "helper", { task: "look for ENOENT" });
    const child = runEvents("k", "helper", { parent: "p", parentToolUseId: "c" });
    child.start();
    child.turn(1, [{ type: "tool_use", id: "g", name: "grep", input: { pattern: "needle" } }]);
    child.toolUse(1, "g", "grep", { pattern: "needle" });
    child.toolResult(1, "g", "grep", "no such file: ENOENT", { is_error: true });
    child.turn(2, [{ type: "text", text: "nothing found" }]);
    child.result();
    run.toolResult(1, "c", "helper", "nothing found", { kind: "agent_tool" });
    run.turn(2, [{ type: "text", text: "done" }]);
    run.result();
    return buildTraceModel([...run.events, ...child.events]);
  };
  const ids = (rows: TreeNode[]) => rows.map(node => node.id);

  it("collapsing a node hides its descendants", () => {
    const model = build();
    expect(visibleRows(model, new Set(), {}).rows).toHaveLength(8);
    expect(ids(visibleRows(model, new Set(["tool:p:c"]), {}).rows)).toEqual([
      "run:p",
      "turn:p:1",
      "tool:p:c",
      "turn:p:2",
    ]);
  });

  it("a filter shows matches and their ancestors as context, whatever is collapsed", () => {
    const model = build();
    const { rows, matched } = visibleRows(model, new Set(["run:p"]), { text: "enoent", type: "errors" });
    expect(ids(rows)).toEqual(["run:p", "turn:p:1", "tool:p:c", "run:k", "turn:k:1", "tool:k:g"]);
    expect([...matched!].map(node => node.id)).toEqual(["tool:k:g"]);
  });

  it("filters by agent and by type", () => {
    const model = build();
    const byAgent = visibleRows(model, new Set(), { source: "helper" });
    expect([...byAgent.matched!].map(node => node.id).sort()).toEqual([
      "run:k",
      "tool:k:g",
      "turn:k:1",
      "turn:k:2",
    ]);
    const delegations = visibleRows(model, new Set(), { type: "delegation" });
    expect([...delegations.matched!].map(node => node.id)).toEqual(["tool:p:c"]);
  });

  it("text search reads a call's input and result, not every later request's history", () => {
    const model = build();
    expect([...visibleRows(model, new Set(), { text: "NEEDLE" }).matched!].map(node => node.id)).toEqual([
      "turn:k:1",
      "tool:k:g",
    ]);
  });
});

describe("errors counted once (issue 26)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "al-viewer-errors-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Runs a lead (with a delegated helper when `withChild`) once against the mock server with `script`, traced to JSONL, and builds the viewer's model. */
  async function traced(script: MockScriptItem[], withChild: boolean) {
    const server = await startMockAnthropicServer({ script });
    const path = join(dir, `${withChild ? "delegated" : "plain"}.jsonl`);
    const tracer = createJsonlContextTracer({ path });
    const model = (name: string) => ({ apiKey: "bad-key", baseURL: server.url, model: "mock", name });
    const helper = createBareAgent(model("helper"));
    const agent = createBareAgent({
      ...model("lead"),
      tools: withChild ? [agentTool("helper", helper)] : [],
    });
    try {
      const result = await agent.prompt("go", { tracer });
      await tracer.close?.();
      return {
        result,
        model: buildTraceModel(readContextTrace(await readFile(path, "utf8")) as TraceEvent[]),
      };
    } finally {
      await server.close();
    }
  }

  it("a real 401 marks the error row, the turn and the run, and counts as one error", async () => {
    const { result, model } = await traced([unauthorized()], false);
    expect(result.subtype).toBe("error_during_execution");
    const run = model.roots[0]!;
    const flagged = [...model.nodes.values()].filter(node => node.error).map(node => node.kind);
    expect(flagged.sort()).toEqual(["event", "run", "turn"]);
    expect(run.error?.status).toBe(401);
    expect(model.totals.errors).toBe(1);
  });

  it("a delegated agent's 401 counts once, not again for the parent's failed call", async () => {
    const { result, model } = await traced(
      [
        toolTurn({ name: "helper", input: { task: "look" }, id: "call_helper" }),
        unauthorized(),
        textTurn("done"),
      ],
      true,
    );
    expect(result.subtype).toBe("success");
    const call = [...model.nodes.values()].find(node => node.kind === "tool") as ToolNode;
    expect(call.error).toBeDefined(); // the parent's call failed because the child did
    expect((call.children[0] as RunNode).error?.status).toBe(401);
    expect(model.totals.errors).toBe(1);
  });
});
