import { createScriptedModelClient, systemText, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { CONCURRENCY_HINT, createBareAgent, type ToolDefinition, tool } from "../src/index.js";
import { unmarked } from "./helpers.js";

/** Records start/end of every handler so overlap can be proven from the timeline, not from wall-clock speed. */
function recorder() {
  const events: string[] = [];
  let running = 0;
  let peak = 0;
  const make = (
    name: string,
    options: { safe?: (input: { id: string }) => boolean; waitFor?: Promise<void> } = {},
  ) =>
    tool(
      name,
      name,
      z.object({ id: z.string() }),
      async ({ id }, { signal }) => {
        events.push(`start ${id}`);
        running += 1;
        peak = Math.max(peak, running);
        await (options.waitFor ?? new Promise(resolve => setTimeout(resolve, 15)));
        running -= 1;
        events.push(`end ${id}${signal.aborted ? " (saw abort)" : ""}`);
        return { content: id };
      },
      options.safe ? { isConcurrencySafe: options.safe } : {},
    );
  return { events, make, peak: () => peak };
}

function batchOf(calls: Array<[string, string]>) {
  return toolTurn(calls.map(([name, id]) => ({ name, input: { id }, id: `toolu_${id}` })));
}

async function run(tools: ToolDefinition[], calls: Array<[string, string]>, concurrency?: object) {
  const client = createScriptedModelClient({ script: [batchOf(calls), textTurn("done")] });
  const agent = createBareAgent({
    model: "m",
    modelClient: client,
    tools,
    ...(concurrency ? { toolConcurrency: concurrency } : {}),
  });
  const result = await agent.prompt("go");
  return { client, result };
}

describe("tool concurrency (C14)", () => {
  it("safe mode: a run of safe calls overlaps; an unsafe call runs alone, in tool_use order", async () => {
    const r = recorder();
    const safe = r.make("safe", { safe: () => true });
    const unsafe = r.make("unsafe");
    const { client } = await run(
      [safe, unsafe],
      [
        ["safe", "a"],
        ["safe", "b"],
        ["unsafe", "c"],
        ["safe", "d"],
        ["safe", "e"],
      ],
    );
    expect(r.events).toEqual([
      "start a",
      "start b",
      "end a",
      "end b",
      "start c",
      "end c",
      "start d",
      "start e",
      "end d",
      "end e",
    ]);
    expect(unmarked(client.requests[1]!.messages.at(-1)!.content)).toEqual(
      ["a", "b", "c", "d", "e"].map(id => ({ type: "tool_result", tool_use_id: `toolu_${id}`, content: id })),
    );
  });

  it("isConcurrencySafe decides per parsed input", async () => {
    const r = recorder();
    const reader = r.make("reader", { safe: input => input.id !== "write" });
    await run(
      [reader],
      [
        ["reader", "x"],
        ["reader", "write"],
        ["reader", "y"],
      ],
    );
    expect(r.events).toEqual(["start x", "end x", "start write", "end write", "start y", "end y"]);
  });

  it("isConcurrencySafe(input): calls whose input is safe do overlap, around one that is not", async () => {
    const r = recorder();
    const reader = r.make("reader", { safe: input => input.id !== "write" });
    await run(
      [reader],
      [
        ["reader", "a"],
        ["reader", "b"],
        ["reader", "write"],
        ["reader", "c"],
        ["reader", "d"],
      ],
    );
    const order = r.events;
    // a and b both start before either ends; so do c and d; the unsafe call runs alone between them.
    expect(order.slice(0, 2).sort()).toEqual(["start a", "start b"]);
    expect(order.slice(4, 6)).toEqual(["start write", "end write"]);
    expect(order.slice(6, 8).sort()).toEqual(["start c", "start d"]);
    expect(r.peak()).toBe(2);
  });

  it("tools without a declaration stay sequential by default", async () => {
    const r = recorder();
    const plain = r.make("plain");
    await run(
      [plain],
      [
        ["plain", "a"],
        ["plain", "b"],
      ],
    );
    expect(r.peak()).toBe(1);
  });

  it('"all" overlaps every call up to maxConcurrency; "sequential" overlaps none even when marked safe', async () => {
    const all = recorder();
    const plain = all.make("plain");
    await run(
      [plain],
      [
        ["plain", "1"],
        ["plain", "2"],
        ["plain", "3"],
        ["plain", "4"],
        ["plain", "5"],
      ],
      { mode: "all", maxConcurrency: 3 },
    );
    expect(all.peak()).toBe(3);

    const seq = recorder();
    const safe = seq.make("safe", { safe: () => true });
    await run(
      [safe],
      [
        ["safe", "1"],
        ["safe", "2"],
        ["safe", "3"],
      ],
      { mode: "sequential" },
    );
    expect(seq.peak()).toBe(1);
  });

  it("maxConcurrency defaults to 10", async () => {
    const r = recorder();
    const safe = r.make("safe", { safe: () => true });
    await run(
      [safe],
      Array.from({ length: 14 }, (_, i): [string, string] => ["safe", String(i)]),
    );
    expect(r.peak()).toBe(10);
  });

  it("one failing call does not discard the others' results", async () => {
    const ok = tool("ok", "ok", z.object({}), async () => ({ content: "fine" }), {
      isConcurrencySafe: () => true,
    });
    const bad = tool(
      "bad",
      "bad",
      z.object({}),
      async () => {
        throw new Error("boom");
      },
      { isConcurrencySafe: () => true },
    );
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "ok", input: {} },
          { name: "bad", input: {} },
          { name: "ok", input: {} },
        ]),
        textTurn("done"),
      ],
    });
    await createBareAgent({ model: "m", modelClient: client, tools: [ok, bad] }).prompt("go");
    const contents = (
      client.requests[1]!.messages.at(-1)!.content as Array<{ content: string; is_error?: boolean }>
    ).map(b => [b.content, b.is_error ?? false]);
    expect(contents).toEqual([
      ["fine", false],
      ['Tool "bad" failed: boom', true],
      ["fine", false],
    ]);
  });

  it("on abort: running handlers get the signal, queued ones never start, started ones are awaited", async () => {
    const controller = new AbortController();
    const r = recorder();
    let release!: () => void;
    const gate = new Promise<void>(resolve => {
      release = resolve;
    });
    const slow = r.make("slow", { safe: () => true, waitFor: gate });
    const client = createScriptedModelClient({
      script: [
        batchOf([
          ["slow", "a"],
          ["slow", "b"],
          ["slow", "c"],
          ["slow", "d"],
        ]),
        textTurn("never"),
      ],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [slow],
      toolConcurrency: { maxConcurrency: 2 },
    });
    const pending = agent.prompt("go", { signal: controller.signal });
    while (r.events.length < 2) await new Promise(resolve => setTimeout(resolve, 1));
    controller.abort();
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await new Promise(resolve => setTimeout(resolve, 20));
    expect(settled).toBe(false); // still waiting for a and b
    release();
    const result = await pending;
    expect(result.subtype).toBe("error_abort");
    expect(r.events).toEqual(["start a", "start b", "end a (saw abort)", "end b (saw abort)"]);
    const history = await agent.getHistory();
    const results = history.at(-1)!.content as Array<{ tool_use_id: string; content: string }>;
    expect(results.map(b => b.tool_use_id)).toEqual(["toolu_a", "toolu_b", "toolu_c", "toolu_d"]);
    expect(results[2]!.content).toMatch(/did not run: the query was cancelled/);
    expect(client.requests).toHaveLength(1);
  });

  it("adds the batching hint to the system prompt only when concurrency is available", async () => {
    const safe = tool("s", "s", z.object({}), async () => ({ content: "" }), {
      isConcurrencySafe: () => true,
    });
    const plain = tool("p", "p", z.object({}), async () => ({ content: "" }));
    const systemFor = async (tools: ToolDefinition[], toolConcurrency?: object) => {
      const client = createScriptedModelClient({ script: [textTurn("x")] });
      await createBareAgent({
        model: "m",
        modelClient: client,
        systemPrompt: "Base.",
        tools,
        ...(toolConcurrency ? { toolConcurrency } : {}),
      }).prompt("x");
      return systemText(client.requests[0]);
    };
    expect(await systemFor([safe])).toBe(`Base.\n\n${CONCURRENCY_HINT}`);
    expect(await systemFor([plain])).toBe("Base.");
    expect(await systemFor([plain], { mode: "all" })).toBe(`Base.\n\n${CONCURRENCY_HINT}`);
    expect(await systemFor([safe], { mode: "sequential" })).toBe("Base.");
  });

  it("rejects invalid toolConcurrency values at assembly", () => {
    const client = createScriptedModelClient();
    expect(() =>
      createBareAgent({ model: "m", modelClient: client, toolConcurrency: { mode: "parallel" as never } }),
    ).toThrow(/mode must be/);
    expect(() =>
      createBareAgent({ model: "m", modelClient: client, toolConcurrency: { maxConcurrency: 0 } }),
    ).toThrow(/maxConcurrency/);
  });
});
