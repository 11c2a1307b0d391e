// Human approval that pauses a run and resumes it later, in another process if need be.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { findHistoryProblem } from "../src/history-invariant.js";
import {
  ApprovalPendingError,
  agentTool,
  approveCall,
  type ContextTraceEvent,
  createAgentFactory,
  createBareAgent,
  createJsonlHistoryStore,
  defineContextTracer,
  InvalidApprovalError,
  type ModelMessage,
  type PendingApproval,
  rejectCall,
  type SDKMessage,
  type SDKResultMessage,
  tool,
} from "../src/index.js";
import { collect, mockServer } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-approvals-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function money() {
  const sent: string[] = [];
  const transfer = tool(
    "transfer",
    "Send money",
    z.object({ to: z.string(), amount: z.number().positive() }),
    async ({ to, amount }) => {
      sent.push(`${amount}->${to}`);
      return { content: `sent ${amount} to ${to}` };
    },
    { needsApproval: true },
  );
  const lookup = tool("lookup", "Look a name up", z.object({ name: z.string() }), async ({ name }) => {
    sent.push(`lookup ${name}`);
    return { content: `${name} is a customer` };
  });
  return { sent, transfer, lookup };
}

function lastResults(request: { messages: Array<{ role: string; content: unknown }> }) {
  return request.messages.at(-1)!.content as Array<{
    tool_use_id: string;
    content: string;
    is_error?: boolean;
  }>;
}

/** Message types of a query, without the raw stream events. */
const types = (messages: SDKMessage[]) =>
  messages.map(message => message.type).filter(type => type !== "stream_event");

const wellFormed = (history: ModelMessage[]) => expect(findHistoryProblem(history)).toBeUndefined();

/** The pending approval `id` of an awaiting_approval result, as a host shows it to the person. */
function pendingOf(result: SDKMessage | SDKResultMessage | undefined, id: string): PendingApproval {
  const pending = result?.type === "result" ? result.pendingApprovals : undefined;
  const found = pending?.find(approval => approval.toolUseId === id);
  if (!found) throw new Error(`no pending approval ${id} in ${JSON.stringify(result)}`);
  return found;
}

describe("pause and resume in one process", () => {
  it("a needsApproval call ends the query awaiting_approval; resume runs it and the loop goes on", async () => {
    const { sent, transfer } = money();
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "transfer", input: { to: "ada", amount: 40 }, id: "t_pay" }),
        textTurn("Paid Ada."),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [transfer] });
    const first = await collect(agent.query("Pay Ada 40."));
    const result = first.at(-1)!;
    expect(result).toMatchObject({
      type: "result",
      subtype: "awaiting_approval",
      is_error: false,
      pendingApprovals: [
        { toolUseId: "t_pay", toolName: "transfer", input: { to: "ada", amount: 40 }, agentPath: [] },
      ],
    });
    expect(types(first)).toEqual(["system", "assistant", "approval_requested", "result"]);
    expect(sent).toEqual([]);
    expect(client.requests).toHaveLength(1);
    // The pause is part of the history; getHistory() shows it; the wire never carries it.
    const history = await agent.getHistory();
    expect(history.at(-1)).toMatchObject({
      role: "assistant",
      pendingBatch: { calls: [{ state: "awaiting" }] },
    });
    wellFormed(history);
    expect(await agent.getPendingApprovals()).toEqual(
      result.type === "result" ? result.pendingApprovals : [],
    );

    const resumed = await collect(
      agent.resume([approveCall(pendingOf(result, "t_pay"), { decidedBy: "alice" })]),
    );
    expect(types(resumed)).toEqual(["system", "approval_resolved", "user", "assistant", "result"]);
    expect(resumed.filter(message => message.type !== "stream_event")[1]).toMatchObject({
      type: "approval_resolved",
      decisions: [
        { toolUseId: "t_pay", toolName: "transfer", behavior: "approve", decidedBy: "alice", edited: false },
      ],
    });
    expect(resumed.at(-1)).toMatchObject({ subtype: "success", result: "Paid Ada." });
    expect(sent).toEqual(["40->ada"]);
    expect(lastResults(client.requests[1]!)).toEqual([
      expect.objectContaining({ type: "tool_result", tool_use_id: "t_pay", content: "sent 40 to ada" }),
    ]);
    expect(JSON.stringify(client.requests[1])).not.toContain("pendingBatch");
    const after = await agent.getHistory();
    wellFormed(after);
    expect(after.some(message => "pendingBatch" in message)).toBe(false);
  });

  it("prompt({ approvals }) resumes too, and an edited input is validated again", async () => {
    const { sent, transfer } = money();
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "transfer", input: { to: "ada", amount: 40 }, id: "t_pay" }), textTurn("ok")],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [transfer] });
    const paused = await agent.prompt("Pay Ada 40.");
    await agent.prompt({
      approvals: [approveCall(pendingOf(paused, "t_pay"), { updatedInput: { to: "ada", amount: -5 } })],
    });
    expect(sent).toEqual([]);
    expect(lastResults(client.requests[1]!)[0]).toMatchObject({ is_error: true });
    expect(lastResults(client.requests[1]!)[0]!.content).toMatch(
      /edited the input of "transfer" into invalid input/,
    );

    const second = createScriptedModelClient({
      script: [toolTurn({ name: "transfer", input: { to: "ada", amount: 40 }, id: "t_pay" }), textTurn("ok")],
    });
    const agent2 = createBareAgent({ model: "m", modelClient: second, tools: [transfer] });
    const paused2 = await agent2.prompt("Pay Ada 40.");
    await agent2.prompt({
      approvals: [approveCall(pendingOf(paused2, "t_pay"), { updatedInput: { to: "ada", amount: 10 } })],
    });
    expect(sent).toEqual(["10->ada"]);
  });

  it("a rejection is read by the model as an error result with the person's reason", async () => {
    const { sent, transfer } = money();
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "transfer", input: { to: "eve", amount: 900 }, id: "t_pay" }),
        textTurn("Understood."),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [transfer] });
    const paused = await agent.prompt("Pay Eve 900.");
    const result = await agent.prompt({
      approvals: [
        rejectCall(pendingOf(paused, "t_pay"), { message: "Eve is not a customer.", decidedBy: "bob" }),
      ],
    });
    expect(result.subtype).toBe("success");
    expect(sent).toEqual([]);
    const [answer] = lastResults(client.requests[1]!);
    expect(answer).toMatchObject({ tool_use_id: "t_pay", is_error: true });
    expect(answer!.content).toBe(
      'The call to "transfer" was rejected by bob: Eve is not a customer. It did not run.',
    );
    wellFormed(await agent.getHistory());
  });

  it("mixed batch: calls needing no approval wait with the batch, then run in tool_use order", async () => {
    const { sent, transfer, lookup } = money();
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "lookup", input: { name: "ada" }, id: "t1" },
          { name: "transfer", input: { to: "ada", amount: 1 }, id: "t2" },
          { name: "lookup", input: { name: "bob" }, id: "t3" },
        ]),
        textTurn("done"),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [transfer, lookup] });
    const paused = await agent.prompt("go");
    expect(paused.pendingApprovals!.map(approval => approval.toolUseId)).toEqual(["t2"]);
    expect(sent).toEqual([]); // nothing of the batch ran
    await agent.prompt({ approvals: [approveCall(pendingOf(paused, "t2"))] });
    expect(sent).toEqual(["lookup ada", "1->ada", "lookup bob"]);
    expect(lastResults(client.requests[1]!).map(result => result.tool_use_id)).toEqual(["t1", "t2", "t3"]);
  });

  it("the permission callback can ask a person for any call; it sees needsApproval; a denial settles in process", async () => {
    const { sent, transfer, lookup } = money();
    const seen: Array<[string, boolean]> = [];
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "lookup", input: { name: "ada" }, id: "t1" },
          { name: "transfer", input: { to: "ada", amount: 5000 }, id: "t2" },
        ]),
        textTurn("done"),
      ],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [transfer, lookup],
      permission: request => {
        seen.push([request.toolName, request.needsApproval]);
        if (request.toolName === "lookup") return { behavior: "ask", message: "lookups are audited" };
        return { behavior: "deny", message: "over the limit" };
      },
    });
    const paused = await agent.prompt("go");
    expect(seen).toEqual([
      ["lookup", false],
      ["transfer", true],
    ]);
    expect(paused.pendingApprovals).toEqual([
      expect.objectContaining({ toolUseId: "t1", reason: "lookups are audited" }),
    ]);
    await agent.prompt({ approvals: [approveCall(pendingOf(paused, "t1"))] });
    expect(sent).toEqual(["lookup ada"]);
    const results = lastResults(client.requests[1]!);
    expect(results[1]).toMatchObject({
      is_error: true,
      content: 'Permission denied for tool "transfer": over the limit',
    });
  });

  it("needsApproval as a function decides from the input and the query context", async () => {
    const calls: unknown[] = [];
    const pay = tool("pay", "Pay", z.object({ amount: z.number() }), async () => ({ content: "paid" }), {
      needsApproval: (input, context) => {
        calls.push([input, context]);
        return input.amount > (context as { limit: number }).limit;
      },
    });
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "pay", input: { amount: 10 }, id: "small" },
          { name: "pay", input: { amount: 500 }, id: "large" },
        ]),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [pay] });
    const result = await agent.prompt("go", { context: { limit: 100 } });
    expect(result.pendingApprovals!.map(approval => approval.toolUseId)).toEqual(["large"]);
    expect(calls).toEqual([
      [{ amount: 10 }, { limit: 100 }],
      [{ amount: 500 }, { limit: 100 }],
    ]);
  });

  it("decisions for only some calls are recorded; the query ends awaiting the rest", async () => {
    const { sent, transfer } = money();
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "transfer", input: { to: "ada", amount: 1 }, id: "a" },
          { name: "transfer", input: { to: "bob", amount: 2 }, id: "b" },
        ]),
        textTurn("done"),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [transfer] });
    const paused = await agent.prompt("go");
    const partial = await agent.prompt({ approvals: [approveCall(pendingOf(paused, "a"))] });
    expect(partial).toMatchObject({ subtype: "awaiting_approval", pendingApprovals: [{ toolUseId: "b" }] });
    expect(sent).toEqual([]);
    await expect(agent.prompt({ approvals: [approveCall(pendingOf(paused, "a"))] })).rejects.toThrow(
      /already decided/,
    );
    const done = await agent.prompt({ approvals: [rejectCall(pendingOf(paused, "b"))] });
    expect(done.subtype).toBe("success");
    expect(sent).toEqual(["1->ada"]);
  });
});

describe("bad resumes and new prompts while paused", () => {
  async function pausedAgent(path: string) {
    const { transfer } = money();
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "transfer", input: { to: "ada", amount: 40 }, id: "t_pay" })],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [transfer],
      historyStore: createJsonlHistoryStore({ path }),
    });
    await agent.prompt("Pay Ada 40.");
    return { agent, client };
  }

  it("unknown id, a duplicate, a bad shape, or no pause: a typed error and nothing changes", async () => {
    const path = join(dir, "h.jsonl");
    const { agent } = await pausedAgent(path);
    const before = await agent.getHistory();
    const stored = () => createJsonlHistoryStore({ path }).load();
    const storedBefore = await stored();
    const { digest } = (await agent.getPendingApprovals())[0]!;
    for (const decisions of [
      [{ toolUseId: "nope", digest, behavior: "approve" }],
      [
        { toolUseId: "t_pay", digest, behavior: "approve" },
        { toolUseId: "t_pay", digest, behavior: "reject" },
      ],
      [{ toolUseId: "t_pay", digest, behavior: "maybe" }],
      [{ toolUseId: "t_pay", behavior: "approve" }], // no digest: not bound to what the person saw
      [],
    ]) {
      await expect(agent.prompt({ approvals: decisions as never })).rejects.toBeInstanceOf(
        InvalidApprovalError,
      );
    }
    expect(await agent.getHistory()).toEqual(before);
    expect(await stored()).toEqual(storedBefore);

    const idle = createBareAgent({ model: "m", modelClient: createScriptedModelClient() });
    await expect(idle.prompt({ approvals: [approveCall({ toolUseId: "x", digest: "d" })] })).rejects.toThrow(
      /not awaiting approval/,
    );
  });

  it("a resume while a query runs is a ConcurrentQueryError", async () => {
    const { transfer } = money();
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "transfer", input: { to: "ada", amount: 1 }, id: "t" }),
        textTurn("slow", { delayMs: 200 }),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [transfer] });
    const paused = await agent.prompt("go");
    const running = agent.prompt({ approvals: [approveCall(pendingOf(paused, "t"))] });
    await new Promise(resolve => setTimeout(resolve, 20));
    await expect(agent.prompt({ approvals: [approveCall(pendingOf(paused, "t"))] })).rejects.toMatchObject({
      code: "concurrent_query",
    });
    expect((await running).subtype).toBe("success");
  });

  it("a new unrelated prompt is refused while paused, until the host discards the pending calls", async () => {
    const path = join(dir, "h.jsonl");
    const { agent, client } = await pausedAgent(path);
    await expect(agent.prompt("Something else")).rejects.toBeInstanceOf(ApprovalPendingError);
    await expect(agent.prompt("Something else")).rejects.toThrow(/discardPendingApprovals/);
    const dropped = await agent.discardPendingApprovals({ message: "the customer cancelled" });
    expect(dropped.map(approval => approval.toolUseId)).toEqual(["t_pay"]);
    client.enqueue(textTurn("fresh start"));
    expect((await agent.prompt("Something else")).result).toBe("fresh start");
    const history = await agent.getHistory();
    wellFormed(history);
    expect(JSON.stringify(history)).toContain(
      "discarded it while it awaited approval: the customer cancelled",
    );
    expect(await createJsonlHistoryStore({ path }).load()).toEqual(history);
  });
});

describe("across processes", () => {
  it("pause, kill the process, resume in a new one over the JSONL store", async () => {
    const server = await mockServer([
      toolTurn({ name: "transfer", input: { to: "ada", amount: 40 }, id: "t_pay" }),
    ]);
    const path = join(dir, "session.jsonl");
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL("./fixtures/approval-child.mjs", import.meta.url)), server.url, path],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let output = "";
      child.stdout.on("data", chunk => {
        output += chunk;
        if (output.includes("\n")) resolve(output.split("\n")[0]!);
      });
      child.once("exit", code => reject(new Error(`child exited ${code} before pausing`)));
    });
    child.kill("SIGKILL");
    const printed = JSON.parse(line);
    expect(printed).toMatchObject({
      subtype: "awaiting_approval",
      pending: [{ toolUseId: "t_pay", toolName: "transfer" }],
    });

    // A new process (here: a new agent over the same file) sees the same pause; load-time repair leaves it alone.
    const { sent, transfer } = money();
    server.enqueue(textTurn("Paid."));
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "mock",
      tools: [transfer],
      historyStore: createJsonlHistoryStore({ path }),
    });
    expect((await agent.getPendingApprovals()).map(approval => approval.toolUseId)).toEqual(["t_pay"]);
    const result = await agent.prompt({ approvals: [approveCall(printed.pending[0], { decidedBy: "ops" })] });
    expect(result).toMatchObject({ subtype: "success", result: "Paid." });
    expect(sent).toEqual(["40->ada"]);
    const stored = await createJsonlHistoryStore({ path }).load();
    wellFormed(stored);
    expect(stored).toEqual(await agent.getHistory());
  });
});

describe("delegation: an approval inside a child surfaces on the outermost run", () => {
  it("a spec child (fresh session): paused, resumed from the parent, in a new parent over the same store", async () => {
    const { sent, transfer } = money();
    const { defineAgent } = createAgentFactory();
    const childScript = [
      toolTurn({ name: "transfer", input: { to: "ada", amount: 7 }, id: "inner" }),
      textTurn("child paid"),
    ];
    const childClient = createScriptedModelClient({ script: childScript });
    const payments = defineAgent({
      model: "m",
      name: "payments",
      modelClient: childClient,
      tools: [transfer],
    });
    const parentClient = createScriptedModelClient({
      script: [
        toolTurn({ name: "payments", input: { task: "pay ada 7" }, id: "outer" }),
        textTurn("All settled."),
      ],
    });
    const path = join(dir, "parent.jsonl");
    const parent = createBareAgent({
      model: "m",
      modelClient: parentClient,
      tools: [agentTool("payments", payments)],
      historyStore: createJsonlHistoryStore({ path }),
    });
    const paused = await parent.prompt("settle up");
    expect(paused).toMatchObject({
      subtype: "awaiting_approval",
      pendingApprovals: [
        {
          toolUseId: "inner",
          toolName: "transfer",
          agentPath: ["payments"],
          input: { to: "ada", amount: 7 },
        },
      ],
    });
    expect(sent).toEqual([]);
    wellFormed(await parent.getHistory());

    // A new parent session over the same store (as a new process would) resumes it.
    const parent2 = createBareAgent({
      model: "m",
      modelClient: parentClient,
      tools: [agentTool("payments", payments)],
      historyStore: createJsonlHistoryStore({ path }),
    });
    const messages = await collect(parent2.query({ approvals: [approveCall(pendingOf(paused, "inner"))] }));
    expect(messages.at(-1)).toMatchObject({ subtype: "success", result: "All settled." });
    expect(sent).toEqual(["7->ada"]);
    // The child's resumed run streamed through the parent as agent_message events.
    expect(messages.some(message => message.type === "agent_message")).toBe(true);
    expect(lastResults(parentClient.requests[1]!)).toEqual([
      expect.objectContaining({ type: "tool_result", tool_use_id: "outer", content: "child paid" }),
    ]);
    wellFormed(await parent2.getHistory());
  });

  it("a live child session: resumed through the parent; a sibling call that finished keeps its result", async () => {
    const { sent, transfer, lookup } = money();
    const child = createBareAgent({
      model: "m",
      name: "payments",
      modelClient: createScriptedModelClient({
        script: [
          toolTurn({ name: "transfer", input: { to: "bob", amount: 3 }, id: "inner" }),
          textTurn("bob paid"),
        ],
      }),
      tools: [transfer],
    });
    const parentClient = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "payments", input: { task: "pay bob 3" }, id: "outer" },
          { name: "lookup", input: { name: "bob" }, id: "sibling" },
        ]),
        textTurn("done"),
      ],
    });
    const parent = createBareAgent({
      model: "m",
      modelClient: parentClient,
      tools: [agentTool("payments", child), lookup],
    });
    const paused = await parent.prompt("go");
    expect(paused.pendingApprovals).toEqual([
      expect.objectContaining({ toolUseId: "inner", agentPath: ["payments"] }),
    ]);
    expect(sent).toEqual(["lookup bob"]); // the sibling ran before the child paused
    await parent.prompt({ approvals: [approveCall(pendingOf(paused, "inner"))] });
    expect(sent).toEqual(["lookup bob", "3->bob"]);
    const results = lastResults(parentClient.requests[1]!);
    expect(results.map(result => [result.tool_use_id, result.content])).toEqual([
      ["outer", "bob paid"],
      ["sibling", "bob is a customer"],
    ]);
    wellFormed(await parent.getHistory());
    wellFormed(await child.getHistory());
  });

  it("delegating itself can need approval (agentTool needsApproval)", async () => {
    const child = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("hi")] }),
    });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "helper", input: { task: "x" }, id: "d" }), textTurn("ok")],
    });
    const parent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [agentTool("helper", child, { needsApproval: true })],
    });
    const paused = await parent.prompt("go");
    expect(paused.pendingApprovals).toEqual([
      expect.objectContaining({ toolUseId: "d", toolName: "helper", agentPath: [] }),
    ]);
    expect((await parent.prompt({ approvals: [approveCall(pendingOf(paused, "d"))] })).subtype).toBe(
      "success",
    );
    expect(lastResults(client.requests[1]!)[0]!.content).toBe("hi");
  });
});

describe("events and traces", () => {
  it("approval_requested and approval_resolved reach the trace, with who decided", async () => {
    const events: ContextTraceEvent[] = [];
    const tracer = defineContextTracer({ onEvent: event => void events.push(event) });
    const { transfer } = money();
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "transfer", input: { to: "ada", amount: 2 }, id: "t" }), textTurn("ok")],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [transfer], tracer });
    const paused = await agent.prompt("go");
    await agent.prompt({ approvals: [approveCall(pendingOf(paused, "t"), { decidedBy: "carol" })] });
    const requested = events.find(
      event => event.type === "approval_requested",
    ) as ContextTraceEvent<"approval_requested">;
    const resolved = events.find(
      event => event.type === "approval_resolved",
    ) as ContextTraceEvent<"approval_resolved">;
    expect(requested.data.approvals).toEqual([
      expect.objectContaining({ toolUseId: "t", toolName: "transfer" }),
    ]);
    expect(resolved.data.decisions).toEqual([
      {
        toolUseId: "t",
        toolName: "transfer",
        agentPath: [],
        behavior: "approve",
        decidedBy: "carol",
        edited: false,
      },
    ]);
    const results = events.filter(event => event.type === "result") as Array<ContextTraceEvent<"result">>;
    expect(results.map(event => event.data.subtype)).toEqual(["awaiting_approval", "success"]);
  });

  it("rejects an invalid needsApproval option at assembly", () => {
    expect(() =>
      tool("t", "d", z.object({}), async () => ({ content: "" }), { needsApproval: "yes" as never }),
    ).toThrow(/needsApproval must be a boolean or a function/);
  });

  it("a consumer that stops at approval_requested still leaves the pause stored", async () => {
    const { transfer } = money();
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "transfer", input: { to: "a", amount: 1 }, id: "t" })],
    });
    const agent = createBareAgent({ model: "m", modelClient: client, tools: [transfer] });
    for await (const message of agent.query("go") as AsyncIterable<SDKMessage>)
      if (message.type === "approval_requested") break;
    expect((await agent.getPendingApprovals()).map(approval => approval.toolUseId)).toEqual(["t"]);
    wellFormed(await agent.getHistory());
  });
});
