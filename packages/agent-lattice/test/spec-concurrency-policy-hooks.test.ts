// Spec sections "Concurrent Tool Calls", "Tool Batch Policy", "Strict Option Validation And Tool Metadata"
// and "Hooks" (C14–C17, C19).
import {
  CONCURRENCY_HINT,
  createAgent,
  createCompositeAgentHooks,
  type ModelMessage,
  type ToolDefinition,
  tool,
} from "agent-lattice";
import { systemText, textTurn, toolTurn } from "agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { mockProvider } from "./helpers.js";

describe("spec: Concurrent Tool Calls (C14)", () => {
  it("safe search calls overlap, bounded by maxConcurrency; results stay in tool_use order; the batching hint is sent", async () => {
    let running = 0;
    let peak = 0;
    const documentIndex = {
      async search(query: string) {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise(resolve => setTimeout(resolve, query === "q0" ? 40 : 10));
        running -= 1;
        return `results for ${query}`;
      },
    };

    const search = tool(
      "search",
      "Search documents",
      z.object({ query: z.string() }),
      async ({ query }) => {
        // App code: replace with your database or search client.
        return { content: await documentIndex.search(query) };
      },
      { isConcurrencySafe: () => true },
    );

    const server = await mockProvider([
      toolTurn(Array.from({ length: 12 }, (_, i) => ({ name: "search", input: { query: `q${i}` } }))),
      textTurn("done"),
    ]);
    const agent = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      tools: [search],
      toolConcurrency: { mode: "safe", maxConcurrency: 8 },
    });
    await agent.prompt("Search everything.");

    expect(peak).toBe(8);
    const results = server.requests[1]!.body.messages.at(-1).content.map(
      (b: { content: string }) => b.content,
    );
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => `results for q${i}`));
    expect(systemText(server.requests[0]!.body)).toContain(CONCURRENCY_HINT);
  });
});

describe("spec: Tool Batch Policy (C15)", () => {
  function setup() {
    const ran: string[] = [];
    const incrementRevision = tool("incrementRevision", "Bump the revision", z.object({}), async () => {
      ran.push("incrementRevision");
      return { content: "revision 8" };
    });
    // A delegation tool (kind "agent_tool"), as agentTool() will produce.
    const delegate: ToolDefinition = {
      ...tool(
        "backend",
        "Delegate to backend",
        z.object({ mode: z.string(), task: z.string() }),
        async () => {
          ran.push("backend");
          return { content: "accepted" };
        },
      ),
      kind: "agent_tool",
    };
    return { ran, incrementRevision, delegate };
  }

  it("the snippet's policy rejects revision + handoff in one batch: nothing runs, every call gets the structured rejection", async () => {
    const { ran, incrementRevision, delegate } = setup();
    const server = await mockProvider([
      toolTurn([
        { name: "incrementRevision", input: {}, id: "toolu_rev" },
        { name: "backend", input: { mode: "handoff", task: "ship it" }, id: "toolu_handoff" },
      ]),
      textTurn("I will bump the revision first."),
    ]);
    const lead = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      tools: [incrementRevision, delegate],
      toolBatchPolicy: {
        validate({ toolCalls }) {
          const incrementsRevision = toolCalls.find(call => call.name === "incrementRevision");
          const handoff = toolCalls.find(
            call => call.kind === "agent_tool" && (call.input as { mode?: string }).mode === "handoff",
          );
          if (incrementsRevision && handoff) {
            return {
              allowed: false,
              code: "invalid_tool_batch",
              message: "Update the revision before delegating dependent work.",
              conflictingToolCallIds: [incrementsRevision.id, handoff.id],
              suggestedNextStep: "Run incrementRevision first, then hand off the new revision.",
            };
          }
          return { allowed: true };
        },
      },
    });
    const result = await lead.prompt("Ship the change.");
    expect(result.subtype).toBe("success");
    expect(ran).toEqual([]);
    const blocks = server.requests[1]!.body.messages.at(-1).content;
    expect(blocks.map((b: { tool_use_id: string }) => b.tool_use_id)).toEqual(["toolu_rev", "toolu_handoff"]);
    for (const block of blocks) {
      expect(block.is_error).toBe(true);
      expect(JSON.parse(block.content)).toEqual({
        code: "invalid_tool_batch",
        message: "Update the revision before delegating dependent work.",
        conflictingToolCallIds: ["toolu_rev", "toolu_handoff"],
        suggestedNextStep: "Run incrementRevision first, then hand off the new revision.",
      });
    }
  });

  it("an async policy that allows lets the batch run; one that throws rejects it with tool_batch_policy_error", async () => {
    const { ran, incrementRevision } = setup();
    const server = await mockProvider([
      toolTurn({ name: "incrementRevision", input: {} }),
      toolTurn({ name: "incrementRevision", input: {} }),
      textTurn("ok"),
    ]);
    let calls = 0;
    const agent = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [incrementRevision],
      toolBatchPolicy: {
        async validate() {
          calls += 1;
          if (calls === 2) throw new Error("policy store unreachable");
          return { allowed: true };
        },
      },
    });
    await agent.prompt("x");
    expect(ran).toEqual(["incrementRevision"]);
    const rejection = JSON.parse(server.requests[2]!.body.messages.at(-1).content[0].content);
    expect(rejection.code).toBe("tool_batch_policy_error");
    expect(rejection.message).toContain("policy store unreachable");
  });
});

describe("spec: Strict Option Validation And Tool Metadata (C16, C17)", () => {
  it("an unknown AgentOptions key throws the exact message", () => {
    expect(() => createAgent({ apiKey: "k", model: "m", bogusOption: true } as never)).toThrow(
      'AgentOptions: unknown option "bogusOption". Check for a typo, or upgrade the SDK if this option was added in a newer version.',
    );
  });

  it("metadata passes through to ToolDefinition.metadata, never to the model; absent when not passed", async () => {
    const documentIndex = { search: async (query: string) => `hits for ${query}` };
    const search = tool(
      "search",
      "Search documents",
      z.object({ query: z.string() }),
      async ({ query }) => ({ content: await documentIndex.search(query) }),
      { metadata: { contractVersion: 3 } },
    );
    const plain = tool("plain", "Plain", z.object({}), async () => ({ content: "" }));
    expect(search.metadata).toEqual({ contractVersion: 3 });
    expect("metadata" in plain).toBe(false);

    const server = await mockProvider([textTurn("ok")]);
    await createAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [search, plain] }).prompt("x");
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain("contractVersion");
  });

  it("nested option objects are strict too", () => {
    expect(() =>
      createAgent({ apiKey: "k", model: "m", toolConcurrency: { mode: "safe", max: 3 } as never }),
    ).toThrow('AgentOptions.toolConcurrency: unknown option "max".');
    expect(() =>
      createAgent({ apiKey: "k", model: "m", hooks: { onToolResults: () => {} } as never }),
    ).toThrow('AgentOptions.hooks: unknown option "onToolResults".');
    expect(() => createAgent({ apiKey: "k", model: "m", toolBatchPolicy: {} as never })).toThrow(
      /validate\(\{ toolCalls \}\)/,
    );
  });
});

describe("spec: Hooks (C19)", () => {
  const redact = async (content: unknown) => String(content).replace(/\d{3}-\d{2}-\d{4}/g, "[redacted]");
  const compact = (messages: readonly ModelMessage[]) => messages.slice(-2);

  it("onToolResult redacts what the model sees; onModelRequest trims one request; stored history untouched", async () => {
    const queryDatabase = tool("queryDatabase", "Query", z.object({}), async () => ({
      content: "ssn 123-45-6789",
    }));
    const script = [];
    for (let i = 0; i < 21; i++) script.push(toolTurn({ name: "queryDatabase", input: {} }));
    script.push(textTurn("done"));
    const server = await mockProvider(script);
    const agent = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      tools: [queryDatabase],
      hooks: {
        async onToolResult({ toolName, result, error }) {
          void error;
          if (toolName !== "queryDatabase") return; // undefined: leave unchanged
          return { ...result, content: await redact(result.content) };
        },
        onModelRequest({ messages, turn }) {
          void turn;
          if (messages.length < 40) return;
          return { messages: compact(messages) };
        },
      },
    });
    await agent.prompt("Look everything up.");
    expect(JSON.stringify(server.requests.map(r => r.body))).not.toContain("123-45-6789");
    expect(server.requests[0]!.body.messages).toHaveLength(1);
    expect(server.requests[20]!.body.messages).toHaveLength(2); // trimmed: 41 messages stored at that point
    const history = await agent.getHistory();
    expect(history).toHaveLength(44);
    expect(JSON.stringify(history)).not.toContain("123-45-6789");
  });

  it("onToolResult sees failures, truncated calls and policy-blocked calls too", async () => {
    const failing = tool("failing", "Fails", z.object({}), async () => {
      throw new Error("kaput");
    });
    const seen: Array<{ toolName: string; is_error: boolean | undefined; error?: string }> = [];
    const server = await mockProvider([
      toolTurn({ name: "failing", input: {} }),
      toolTurn({ name: "failing", input: {} }, { stopReason: "max_tokens" }),
      toolTurn({ name: "failing", input: {} }),
      textTurn("end"),
    ]);
    let policyCalls = 0;
    await createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [failing],
      toolBatchPolicy: {
        validate: () =>
          ++policyCalls === 2 ? { allowed: false, code: "blocked", message: "no" } : { allowed: true },
      },
      hooks: {
        onToolResult: ({ toolName, result, error }) => {
          seen.push({
            toolName,
            is_error: result.is_error,
            ...(error ? { error: (error as Error).message } : {}),
          });
        },
      },
    }).prompt("x");
    expect(seen).toEqual([
      { toolName: "failing", is_error: true, error: "kaput" },
      { toolName: "failing", is_error: true },
      { toolName: "failing", is_error: true },
    ]);
  });

  it("a throwing hook propagates out of query(); history keeps no unredacted result and stays well-formed", async () => {
    const secret = tool("secret", "Secret", z.object({}), async () => ({ content: "TOP SECRET" }));
    const server = await mockProvider([toolTurn({ name: "secret", input: {} }), textTurn("after")]);
    const agent = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [secret],
      hooks: {
        onToolResult: () => {
          throw new Error("redaction service down");
        },
      },
    });
    await expect(agent.prompt("x")).rejects.toThrow("redaction service down");
    const history = await agent.getHistory();
    expect(JSON.stringify(history)).not.toContain("TOP SECRET");
    expect(history.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", is_error: true }],
    });
    expect(server.requests).toHaveLength(1);
  });

  it("a throwing onModelRequest propagates and nothing is sent", async () => {
    const server = await mockProvider([textTurn("never")]);
    const agent = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      hooks: {
        onModelRequest: () => {
          throw new Error("context service down");
        },
      },
    });
    await expect(agent.prompt("x")).rejects.toThrow("context service down");
    expect(server.requests).toHaveLength(0);
    // The agent is released: a later query is accepted.
    await expect(agent.prompt("y")).rejects.toThrow("context service down");
  });

  it("createCompositeAgentHooks chains in order, each receiving the previous output", async () => {
    const shout = tool("shout", "Shout", z.object({}), async () => ({ content: "hello" }));
    const server = await mockProvider([toolTurn({ name: "shout", input: {} }), textTurn("ok")]);
    const hooks = createCompositeAgentHooks([
      { onToolResult: ({ result }) => ({ ...result, content: `${result.content} world` }) },
      { onToolResult: () => undefined },
      { onToolResult: ({ result }) => ({ ...result, content: String(result.content).toUpperCase() }) },
      { onModelRequest: ({ system }) => ({ system: `${system ?? ""}[a]` }) },
      { onModelRequest: ({ system }) => ({ system: `${system}[b]` }) },
    ]);
    await createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [shout],
      hooks,
      workspace: false,
    }).prompt("x");
    expect(server.requests[1]!.body.messages.at(-1).content[0].content).toBe("HELLO WORLD");
    expect(server.requests[0]!.body.system).toBe("[a][b]");
  });
});
