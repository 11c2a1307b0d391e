// The QueryRuntime seam (core seams issue): a runtime hosting a query may take delegation calls and hold the next
// model request until the input it awaits has arrived, without a copy of the loop.
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import {
  agentTool,
  createBareAgent,
  type DelegationRequest,
  type QueryRuntime,
  type UserContentBlock,
} from "../src/index.js";
import { collect, unmarked } from "./helpers.js";

/** A minimal handoff runtime: queues handoffs, answers with a receipt, reports in handoff order before the next turn. */
function handoffRuntime(log: string[]) {
  const queued: Array<{ request: DelegationRequest; done: Promise<string> }> = [];
  const runtime: QueryRuntime = {
    delegate(request) {
      if (request.mode !== "handoff") return undefined;
      const task = String((request.input as { task: string }).task);
      log.push(`queued ${task}`);
      // Work finishes out of order: the later handoff completes first.
      const delay = task === "first" ? 30 : 5;
      const done = new Promise<string>(resolve =>
        setTimeout(() => {
          log.push(`finished ${task}`);
          resolve(`report for ${task}`);
        }, delay),
      );
      queued.push({ request, done });
      return { content: JSON.stringify({ status: "accepted", task }) };
    },
    async pendingInput(boundary) {
      if (!queued.length) return undefined;
      const batch = queued.splice(0);
      await boundary.emit({
        type: "system",
        subtype: "init",
        session_id: "runtime-note",
        model: "runtime",
        tools: batch.map(entry => entry.request.tool),
      });
      const reports = await Promise.all(batch.map(entry => entry.done));
      log.push("admitted");
      return reports.map((text): UserContentBlock => ({ type: "text", text }));
    },
  };
  return runtime;
}

describe("QueryRuntime seam", () => {
  it("holds the next model request until handed-off work reports, then feeds reports in handoff order", async () => {
    const log: string[] = [];
    const member = createBareAgent({ model: "m", modelClient: createScriptedModelClient() });
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "member", input: { mode: "handoff", task: "first" }, id: "t1" },
          { name: "member", input: { mode: "handoff", task: "second" }, id: "t2" },
        ]),
        textTurn("all done"),
      ],
    });
    const lead = createBareAgent({ model: "m", modelClient: client, tools: [agentTool("member", member)] });
    const messages = await collect(lead.query("go", { runtime: handoffRuntime(log) }));

    expect(log).toEqual(["queued first", "queued second", "finished second", "finished first", "admitted"]);
    expect(client.requests).toHaveLength(2);
    // The second request carries the tool results, then the reports in handoff order as the next user message
    // (the Messages API reads consecutive user messages as one turn).
    const [results, reports] = client.requests[1]!.messages.slice(-2);
    expect(results!.content).toEqual([
      expect.objectContaining({ type: "tool_result", tool_use_id: "t1" }),
      expect.objectContaining({ type: "tool_result", tool_use_id: "t2" }),
    ]);
    expect(unmarked(reports)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "report for first" },
        { type: "text", text: "report for second" },
      ],
    });
    // The history (and a store) keep them the same way, without the request's cache breakpoint.
    expect((await lead.getHistory()).slice(-3, -1)).toEqual(unmarked(client.requests[1]!.messages.slice(-2)));
    // What the runtime emitted while waiting reached the consumer, between the tool results and the next turn.
    const order = messages.map(message => message.type);
    expect(order.indexOf("system", 1)).toBeGreaterThan(order.indexOf("user"));
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "all done" });
  });

  it("without a runtime, handoff stays unsupported_mode and the loop never waits", async () => {
    const member = createBareAgent({ model: "m", modelClient: createScriptedModelClient() });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "member", input: { mode: "handoff", task: "x" }, id: "t1" }), textTurn("ok")],
    });
    const lead = createBareAgent({ model: "m", modelClient: client, tools: [agentTool("member", member)] });
    await lead.prompt("go");
    const results = client.requests[1]!.messages.at(-1)!.content as Array<{ content: string }>;
    expect(results[0]!.content).toMatch(/^unsupported_mode:/);
  });

  it("an abort while the runtime waits ends the query with error_abort and the runtime sees its signal", async () => {
    const controller = new AbortController();
    let runtimeSignal: AbortSignal | undefined;
    const runtime: QueryRuntime = {
      pendingInput(boundary) {
        runtimeSignal = boundary.signal;
        setTimeout(() => controller.abort(), 10);
        return new Promise(() => {}); // waits for reports that never come
      },
    };
    const client = createScriptedModelClient({ script: [toolTurn({ name: "noop", input: {}, id: "t1" })] });
    const agent = createBareAgent({ model: "m", modelClient: client });
    const result = await agent.prompt("go", { runtime, signal: controller.signal });
    expect(result.subtype).toBe("error_abort");
    expect(runtimeSignal?.aborted).toBe(true);
    expect(client.requests).toHaveLength(1);
    // The agent is usable again.
    client.enqueue(textTurn("again"));
    expect((await agent.prompt("next")).result).toBe("again");
  });

  it("an interrupt while the runtime waits ends the query as interrupted", async () => {
    const client = createScriptedModelClient({ script: [toolTurn({ name: "noop", input: {}, id: "t1" })] });
    const agent = createBareAgent({ model: "m", modelClient: client });
    const runtime: QueryRuntime = {
      pendingInput() {
        setTimeout(() => agent.interrupt(), 10);
        return new Promise(() => {});
      },
    };
    const result = await agent.prompt("go", { runtime });
    expect(result).toMatchObject({ subtype: "interrupted", is_error: false });
  });

  it("a runtime returning something other than content blocks is a clear error", async () => {
    const client = createScriptedModelClient({ script: [toolTurn({ name: "noop", input: {}, id: "t1" })] });
    const agent = createBareAgent({ model: "m", modelClient: client });
    const runtime = { pendingInput: () => "report" } as unknown as QueryRuntime;
    await expect(agent.prompt("go", { runtime })).rejects.toThrow(/must return an array of content blocks/);
  });

  it("rejects a runtime that is not a QueryRuntime at query time", () => {
    const agent = createBareAgent({ model: "m", modelClient: createScriptedModelClient() });
    expect(() => agent.query("go", { runtime: { pendingInput: 1 } as unknown as QueryRuntime })).toThrow(
      /QueryOptions.runtime must be a QueryRuntime/,
    );
  });
});
