import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { createBareAgent, InvalidOptionError, type ToolResultBlock, tool } from "../src/index.js";
import { collect, mockServer, unmarked } from "./helpers.js";

function toolResults(body: { messages: Array<{ role: string; content: unknown }> }): ToolResultBlock[] {
  return unmarked(body.messages.at(-1)!.content as ToolResultBlock[]);
}

describe("tool() (C10)", () => {
  it("derives the model's JSON Schema from a zod 4 schema, keeping descriptions and dropping $schema", () => {
    const search = tool(
      "search",
      "Search documents",
      z.object({ query: z.string().describe("What to look for"), limit: z.number().int().optional() }),
      async () => ({ content: "" }),
    );
    expect(search.kind).toBe("tool");
    expect(search.inputSchema).toMatchObject({
      type: "object",
      properties: { query: { type: "string", description: "What to look for" }, limit: { type: "integer" } },
      required: ["query"],
    });
    expect(search.inputSchema).not.toHaveProperty("$schema");
    expect(search).not.toHaveProperty("metadata");
  });

  it("throws at definition time for an invalid name, a non-object schema, or a missing handler", () => {
    expect(() => tool("bad name", "d", z.object({}), async () => ({ content: "" }))).toThrow(
      /invalid name "bad name"/,
    );
    expect(() => tool("num", "d", z.string(), async () => ({ content: "" }))).toThrow(
      /must describe an object/,
    );
    expect(() => tool("x", "d", {} as never, async () => ({ content: "" }))).toThrow(InvalidOptionError);
    expect(() => tool("x", "d", z.object({}), undefined as never)).toThrow(/handler function/);
  });

  it("rejects unknown ToolOptions keys with the strict-validation message", () => {
    expect(() => tool("x", "d", z.object({}), async () => ({ content: "" }), { bogus: 1 } as never)).toThrow(
      'ToolOptions: unknown option "bogus". Check for a typo, or upgrade the SDK if this option was added in a newer version.',
    );
  });

  it("parses input before the handler: defaults applied, types coerced by the schema", async () => {
    const seen: unknown[] = [];
    const greet = tool(
      "greet",
      "Greet",
      z.object({ name: z.string(), times: z.number().default(1) }),
      async input => {
        seen.push(input);
        return { content: "ok" };
      },
    );
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "greet", input: { name: "Ada" } }), textTurn("done")],
    });
    await createBareAgent({ model: "m", modelClient: client, tools: [greet] }).prompt("hi");
    expect(seen).toEqual([{ name: "Ada", times: 1 }]);
  });
});

describe("tool failures become is_error tool_results and the loop goes on", () => {
  it("input that fails the schema: the handler never runs, the model reads which field was wrong", async () => {
    let ran = false;
    const add = tool("add", "Add", z.object({ a: z.number(), b: z.number() }), async () => {
      ran = true;
      return { content: "" };
    });
    const server = await mockServer([
      toolTurn({ name: "add", input: { a: "two", b: 2 } }),
      textTurn("sorry"),
    ]);
    const result = await createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [add],
    }).prompt("x");
    expect(ran).toBe(false);
    expect(result.subtype).toBe("success");
    const [block] = toolResults(server.requests[1]!.body);
    expect(block).toMatchObject({ type: "tool_result", is_error: true });
    expect(block!.content).toMatch(/^Invalid input for tool "add": a: .*expected number/);
  });

  it("a handler that throws", async () => {
    const boom = tool("boom", "Fails", z.object({}), async () => {
      throw new Error("disk on fire");
    });
    const server = await mockServer([toolTurn({ name: "boom", input: {} }), textTurn("handled")]);
    const result = await createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [boom],
    }).prompt("x");
    expect(result.result).toBe("handled");
    expect(toolResults(server.requests[1]!.body)[0]).toMatchObject({
      is_error: true,
      content: 'Tool "boom" failed: disk on fire',
    });
  });

  it("a tool name the agent does not have", async () => {
    const server = await mockServer([toolTurn({ name: "nope", input: {} }), textTurn("ok")]);
    const echo = tool("echo", "Echo", z.object({}), async () => ({ content: "e" }));
    await createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [echo] }).prompt("x");
    expect(toolResults(server.requests[1]!.body)[0]).toMatchObject({
      is_error: true,
      content: 'Tool "nope" is not available. Available tools: echo.',
    });
  });

  it("a handler returning something that is not a tool result", async () => {
    const bad = tool("bad", "Bad", z.object({}), async () => 42 as never);
    const server = await mockServer([toolTurn({ name: "bad", input: {} }), textTurn("ok")]);
    await createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [bad] }).prompt("x");
    expect(toolResults(server.requests[1]!.body)[0]).toMatchObject({ is_error: true });
    expect(toolResults(server.requests[1]!.body)[0]!.content).toContain("returned an invalid result");
  });

  it("a handler's own isError result is passed through", async () => {
    const soft = tool("soft", "Soft failure", z.object({}), async () => ({
      content: "not found",
      isError: true,
    }));
    const server = await mockServer([toolTurn({ name: "soft", input: {} }), textTurn("ok")]);
    await createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [soft] }).prompt("x");
    expect(toolResults(server.requests[1]!.body)[0]).toEqual({
      type: "tool_result",
      tool_use_id: expect.any(String),
      content: "not found",
      is_error: true,
    });
  });

  it("results of a multi-call batch come back in tool_use order, failures included", async () => {
    const slowOk = tool("slow", "Slow", z.object({ n: z.number() }), async ({ n }) => {
      await new Promise(resolve => setTimeout(resolve, 5 * (3 - n)));
      return { content: `slow ${n}` };
    });
    const fail = tool("fail", "Fail", z.object({}), async () => {
      throw new Error("nope");
    });
    const server = await mockServer([
      toolTurn([
        { name: "slow", input: { n: 1 }, id: "t1" },
        { name: "fail", input: {}, id: "t2" },
        { name: "slow", input: { n: 2 }, id: "t3" },
      ]),
      textTurn("done"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [slowOk, fail] });
    const messages = await collect(agent.query("x"));
    const user = messages.find(m => m.type === "user");
    expect(
      user?.type === "user" && user.message.content.map(b => [b.tool_use_id, b.content, b.is_error ?? false]),
    ).toEqual([
      ["t1", "slow 1", false],
      ["t2", 'Tool "fail" failed: nope', true],
      ["t3", "slow 2", false],
    ]);
  });
});

describe("typed context (C11)", () => {
  type Ctx = { tenant: string };
  it("reaches the handler and the permission callback, never the transcript", async () => {
    const seen: unknown[] = [];
    const whoami = tool<Ctx>()("whoami", "Current tenant", z.object({}), async (_input, { context }) => {
      seen.push(context?.tenant);
      return { content: "checked" };
    });
    const server = await mockServer([toolTurn({ name: "whoami", input: {} }), textTurn("ok")]);
    const agent = createBareAgent<Ctx>({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [whoami],
      permission: request => {
        seen.push(`permission:${request.context?.tenant}`);
        return { behavior: "allow" };
      },
    });
    await agent.prompt("who?", { context: { tenant: "acme-secret-tenant" } });
    expect(seen).toEqual(["permission:acme-secret-tenant", "acme-secret-tenant"]);
    expect(JSON.stringify(server.requests.map(r => r.body))).not.toContain("acme-secret-tenant");
  });
});

describe("permission (C20)", () => {
  it("a deny becomes an error tool_result with the host's message, and the tool does not run", async () => {
    let ran = false;
    const danger = tool("danger", "Dangerous", z.object({}), async () => {
      ran = true;
      return { content: "boom" };
    });
    const server = await mockServer([toolTurn({ name: "danger", input: {} }), textTurn("I was blocked.")]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [danger],
      permission: async request =>
        request.toolName === "danger"
          ? { behavior: "deny", message: "Blocked by policy" }
          : { behavior: "allow" },
    });
    const result = await agent.prompt("do it");
    expect(ran).toBe(false);
    expect(result.result).toBe("I was blocked.");
    expect(toolResults(server.requests[1]!.body)[0]).toMatchObject({
      is_error: true,
      content: 'Permission denied for tool "danger": Blocked by policy',
    });
  });

  it("fails closed when the permission callback throws", async () => {
    let ran = false;
    const t = tool("t", "T", z.object({}), async () => {
      ran = true;
      return { content: "" };
    });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "t", input: {} }), textTurn("ok")],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [t],
      permission: () => {
        throw new Error("policy service down");
      },
    });
    await agent.prompt("x");
    expect(ran).toBe(false);
    expect(JSON.stringify(client.requests[1]!.messages.at(-1))).toContain("policy service down");
  });

  it("updatedInput replaces the model's input and is validated again", async () => {
    const seen: unknown[] = [];
    const echo = tool("echo", "Echo", z.object({ text: z.string() }), async ({ text }) => {
      seen.push(text);
      return { content: text };
    });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "echo", input: { text: "secret" } }), textTurn("ok")],
    });
    await createBareAgent({
      model: "m",
      modelClient: client,
      tools: [echo],
      permission: () => ({ behavior: "allow", updatedInput: { text: "[redacted]" } }),
    }).prompt("x");
    expect(seen).toEqual(["[redacted]"]);
  });

  it("an updatedInput that fails the schema is rejected: the handler never runs, the model gets an error result", async () => {
    const seen: unknown[] = [];
    const echo = tool("echo", "Echo", z.object({ text: z.string() }), async ({ text }) => {
      seen.push(text);
      return { content: text };
    });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "echo", input: { text: "fine" }, id: "t1" }), textTurn("ok")],
    });
    await createBareAgent({
      model: "m",
      modelClient: client,
      tools: [echo],
      permission: () => ({ behavior: "allow", updatedInput: { text: 42 } }),
    }).prompt("x");
    expect(seen).toEqual([]);
    const [result] = client.requests[1]!.messages.at(-1)!.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    expect(result).toMatchObject({ is_error: true });
    expect(result!.content).toMatch(/permission callback rewrote the input of "echo" into invalid input/);
  });
});
