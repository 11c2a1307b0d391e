import { createScriptedModelClient, systemText } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { createAgentFactory, createBareAgent, InvalidOptionError, tool } from "../src/index.js";

// Core ships no default workspace; a distribution (the umbrella) builds its createAgent() with this factory.
const { createAgent } = createAgentFactory();

const client = createScriptedModelClient();

describe("AgentOptions validation (C16)", () => {
  it("an unknown option throws the documented message", () => {
    expect(() => createBareAgent({ model: "m", modelClient: client, bogusOption: 1 } as never)).toThrow(
      'AgentOptions: unknown option "bogusOption". Check for a typo, or upgrade the SDK if this option was added in a newer version.',
    );
    expect(() => createAgent({ model: "m", modelClient: client, bogusOption: 1 } as never)).toThrow(
      InvalidOptionError,
    );
  });

  it("model is required", () => {
    expect(() => createBareAgent({ modelClient: client } as never)).toThrow(/"model" is required/);
  });

  it("maxTurns and maxTokens must be positive integers", () => {
    expect(() => createBareAgent({ model: "m", modelClient: client, maxTurns: 0 })).toThrow(
      "AgentOptions.maxTurns must be a positive integer, got 0.",
    );
    expect(() => createBareAgent({ model: "m", modelClient: client, maxTokens: 1.5 })).toThrow(/maxTokens/);
  });

  it("duplicate tool names throw", () => {
    const a = tool("same", "A", z.object({}), async () => ({ content: "" }));
    expect(() => createBareAgent({ model: "m", modelClient: client, tools: [a, a] })).toThrow(
      /two tools are named "same"/,
    );
  });

  it("a missing API key fails at assembly with what to do", () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      expect(() => createBareAgent({ model: "m" })).toThrow(/no API key\. Pass apiKey/);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it("a query option that does not exist throws from query() and prompt()", async () => {
    const agent = createBareAgent({ model: "m", modelClient: client });
    expect(() => agent.query("x", { strem: false } as never)).toThrow(
      'QueryOptions: unknown option "strem".',
    );
    await expect(agent.prompt("x", { strem: false } as never)).rejects.toThrow(InvalidOptionError);
  });

  it("createBareAgent refuses a workspace provider; createAgent from core runs bare without one", async () => {
    const provider = { createSession: () => ({ tools: [] }) };
    expect(() => createBareAgent({ model: "m", modelClient: client, workspace: provider })).toThrow(
      /never installs a workspace/,
    );
    const scripted = createScriptedModelClient({
      script: [{ kind: "turn", content: [{ type: "text", text: "bare" }] }],
    });
    const agent = createAgent({ model: "m", modelClient: scripted });
    expect((await agent.prompt("x")).result).toBe("bare");
    expect(scripted.requests[0]!.tools).toEqual([]);
  });

  it("createAgent installs a workspace provider's tools and prompt section", async () => {
    const ls = tool("LS", "List", z.object({}), async () => ({ content: "" }));
    const scripted = createScriptedModelClient({
      script: [{ kind: "turn", content: [{ type: "text", text: "ok" }] }],
    });
    const agent = createAgent({
      model: "m",
      modelClient: scripted,
      systemPrompt: "Base.",
      workspace: {
        createSession: ({ sessionId }) => ({ tools: [ls], systemPromptSection: `Workspace of ${sessionId}` }),
      },
    });
    await agent.prompt("x");
    expect(scripted.requests[0]!.tools.map(t => t.name)).toEqual(["LS"]);
    expect(systemText(scripted.requests[0])).toBe(`Base.\n\nWorkspace of ${agent.sessionId}`);
  });
});

describe("QueryOptions.permissions (workspace grants, T6/B2 mechanism)", () => {
  it("reach every tool handler as extra.permissions", async () => {
    const seen: unknown[] = [];
    const probe = tool("probe", "Probe", z.object({}), async (_input, extra) => {
      seen.push(extra.permissions);
      return { content: "ok" };
    });
    const scripted = createScriptedModelClient({
      script: [
        { kind: "turn", content: [{ type: "tool_use", id: "t1", name: "probe", input: {} }] },
        { kind: "turn", content: [{ type: "text", text: "done" }] },
        { kind: "turn", content: [{ type: "tool_use", id: "t2", name: "probe", input: {} }] },
        { kind: "turn", content: [{ type: "text", text: "done" }] },
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: scripted, tools: [probe] });
    const grants = [{ root: "/srv/shared", access: ["write" as const], reason: "shared repo" }];
    await agent.prompt("x", { permissions: { workspaceGrants: grants } });
    await agent.prompt("y");
    expect(seen).toEqual([{ workspaceGrants: grants }, {}]);
  });

  it("malformed grants throw with what a grant looks like", () => {
    const agent = createBareAgent({ model: "m", modelClient: client });
    expect(() => agent.query("x", { permissions: { workspaceGrants: [{ root: "" } as never] } })).toThrow(
      /each grant needs a root path/,
    );
    expect(() =>
      agent.query("x", { permissions: { workspaceGrants: [{ root: "/a", access: ["delete" as never] }] } }),
    ).toThrow(/unknown access "delete"/);
    expect(() => agent.query("x", { permissions: { grants: [] } as never })).toThrow(
      'QueryOptions.permissions: unknown option "grants"',
    );
  });
});
