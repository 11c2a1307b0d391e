// Bad input of every kind gets the documented error, and the history stays well-formed:
// every tool_use is answered by exactly one tool_result in the next message.
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  type Agent,
  createBareAgent,
  InvalidOptionError,
  type ModelClient,
  type ModelMessage,
  type RawStreamEvent,
  tool,
} from "../src/index.js";

function expectWellFormed(history: ModelMessage[]) {
  history.forEach((message, index) => {
    if (message.role !== "assistant") return;
    const uses = message.content.filter(b => b.type === "tool_use").map(b => (b as { id: string }).id);
    if (uses.length === 0) return;
    const next = history[index + 1];
    expect(next?.role).toBe("user");
    const answered = (next!.content as Array<{ type: string; tool_use_id?: string }>)
      .filter(b => b.type === "tool_result")
      .map(b => b.tool_use_id);
    expect(answered).toEqual(uses);
  });
}

const echo = tool("echo", "Echo", z.object({ text: z.string() }), async ({ text }) => ({ content: text }));

async function runWith(agent: Agent<any>): Promise<ModelMessage[]> {
  await agent.prompt("go");
  const history = await agent.getHistory();
  expectWellFormed(history);
  return history;
}

/** A streaming client whose tool input JSON is torn, as a buggy provider might send it. */
function malformedJsonClient(): ModelClient & { calls: number } {
  const client = {
    calls: 0,
    async create() {
      throw new Error("not used");
    },
    async *stream(): AsyncIterable<RawStreamEvent> {
      client.calls += 1;
      const usage = { input_tokens: 1, output_tokens: 1 };
      yield {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "m",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      };
      if (client.calls === 1) {
        yield {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "toolu_bad", name: "echo", input: {} },
        };
        yield {
          type: "content_block_delta",
          index: 0,
          delta: { type: "input_json_delta", partial_json: '{"text": "unterminat' },
        };
        yield { type: "content_block_stop", index: 0 };
        yield { type: "message_delta", delta: { stop_reason: "tool_use" }, usage };
      } else {
        yield { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } };
        yield { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "recovered" } };
        yield { type: "content_block_stop", index: 0 };
        yield { type: "message_delta", delta: { stop_reason: "end_turn" }, usage };
      }
      yield { type: "message_stop" };
    },
  };
  return client;
}

describe("bad inputs", () => {
  it("malformed tool input JSON from the model → error tool_result, the handler never runs, the loop goes on", async () => {
    let ran = false;
    const guarded = tool("echo", "Echo", z.object({ text: z.string() }), async () => {
      ran = true;
      return { content: "" };
    });
    const history = await runWith(
      createBareAgent({ model: "m", modelClient: malformedJsonClient(), tools: [guarded] }),
    );
    expect(ran).toBe(false);
    const result = (history[2]!.content as Array<{ content: string; is_error: boolean }>)[0]!;
    expect(result.is_error).toBe(true);
    expect(result.content).toContain(
      'Tool "echo" received input that is not valid JSON ({"text": "unterminat)',
    );
    expect(history.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "recovered" }],
    });
  });

  it("a tool name the agent does not have", async () => {
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "ghost", input: {} }), textTurn("ok")],
    });
    const history = await runWith(createBareAgent({ model: "m", modelClient: client, tools: [echo] }));
    expect(JSON.stringify(history[2])).toContain('Tool \\"ghost\\" is not available. Available tools: echo.');
  });

  it("a non-serialisable tool result (BigInt, cycle) becomes an error result, not a crash", async () => {
    const cyclic: Record<string, unknown> = { type: "text", text: "x" };
    cyclic.self = cyclic;
    const bigint = tool("bigint", "B", z.object({}), async () => ({
      content: [{ type: "text", text: "n", extra: 1n }] as never,
    }));
    const cycle = tool("cycle", "C", z.object({}), async () => ({ content: [cyclic] as never }));
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "bigint", input: {} },
          { name: "cycle", input: {} },
        ]),
        textTurn("ok"),
      ],
    });
    const history = await runWith(
      createBareAgent({ model: "m", modelClient: client, tools: [bigint, cycle] }),
    );
    for (const block of history[2]!.content as Array<{ content: string; is_error: boolean }>) {
      expect(block.is_error).toBe(true);
      expect(block.content).toMatch(/returned an invalid result \(content is not JSON-serialisable/);
    }
  });

  it("a tool policy that throws → tool_batch_policy_error on every call, nothing ran", async () => {
    let ran = 0;
    const counted = tool("counted", "C", z.object({}), async () => {
      ran += 1;
      return { content: "" };
    });
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "counted", input: {} },
          { name: "counted", input: {} },
        ]),
        textTurn("ok"),
      ],
    });
    const history = await runWith(
      createBareAgent({
        model: "m",
        modelClient: client,
        tools: [counted],
        toolBatchPolicy: {
          validate() {
            throw new Error("nope");
          },
        },
      }),
    );
    expect(ran).toBe(0);
    for (const block of history[2]!.content as Array<{ content: string }>) {
      expect(JSON.parse(block.content).code).toBe("tool_batch_policy_error");
    }
  });

  it("a turn truncated at max_tokens runs none of its calls and asks for a shorter reissue", async () => {
    let ran = false;
    const write = tool("write", "W", z.object({ text: z.string() }), async () => {
      ran = true;
      return { content: "" };
    });
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "write", input: { text: "cut" } }, { stopReason: "max_tokens" }),
        textTurn("ok"),
      ],
    });
    const history = await runWith(createBareAgent({ model: "m", modelClient: client, tools: [write] }));
    expect(ran).toBe(false);
    expect(JSON.stringify(history[2])).toContain("max_tokens output limit");
  });

  it("unknown options, reserved names and bad values throw at assembly with actionable messages", () => {
    const client = createScriptedModelClient();
    const cases: Array<[() => unknown, RegExp]> = [
      [
        () => createBareAgent({ model: "m", modelClient: client, toolz: [] } as never),
        /unknown option "toolz"/,
      ],
      [
        () => createBareAgent({ model: "m", modelClient: client, outputSchema: { nope: true } as never }),
        /outputSchema must be a schema/,
      ],
      [
        () => createBareAgent({ model: "m", modelClient: client, tools: [{ name: "x" } as never] }),
        /every entry must be a tool created with tool\(\)/,
      ],
      [
        () => createBareAgent({ model: "m", modelClient: client, permission: "allow" as never }),
        /permission must be a function/,
      ],
      [
        () => createBareAgent({ model: "m", modelClient: { send() {} } as never }),
        /must implement the ModelClient port/,
      ],
      [
        () =>
          tool("t", "d", z.object({}), async () => ({ content: "" }), { isConcurrencySafe: true as never }),
        /isConcurrencySafe must be a function/,
      ],
    ];
    for (const [assemble, message] of cases) {
      expect(assemble).toThrow(InvalidOptionError);
      expect(assemble).toThrow(message);
    }
  });
});

describe("addTools()", () => {
  it("offers the new tools from the next model request on, with the same validation", async () => {
    const client = createScriptedModelClient({
      script: [textTurn("a"), toolTurn({ name: "echo", input: { text: "hi" } }), textTurn("b")],
    });
    const agent = createBareAgent({ model: "m", modelClient: client });
    await agent.prompt("first");
    agent.addTools([echo]);
    await agent.prompt("second");
    expect(client.requests[0]!.tools).toEqual([]);
    expect(client.requests[1]!.tools.map(t => t.name)).toEqual(["echo"]);
    expect((client.requests[2]!.messages.at(-1)!.content as Array<{ content: string }>)[0]!.content).toBe(
      "hi",
    );
    expect(() => agent.addTools([echo])).toThrow(/two tools are named "echo"/);
    expect(() => agent.addTools([{ name: "bad" } as never])).toThrow(InvalidOptionError);
  });

  it("a tool added by a running handler is offered on the next turn of the same query", async () => {
    const late = tool("late", "Late", z.object({}), async () => ({ content: "late ran" }));
    let agent!: Agent;
    const loader = tool("load", "Load more tools", z.object({}), async () => {
      agent.addTools([late]);
      return { content: "loaded" };
    });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "load", input: {} }), toolTurn({ name: "late", input: {} }), textTurn("ok")],
    });
    agent = createBareAgent({ model: "m", modelClient: client, tools: [loader] });
    await agent.prompt("go");
    expect(client.requests[1]!.tools.map(t => t.name)).toEqual(["load", "late"]);
  });
});
