// Type tests (vitest --typecheck): the inference the public API promises. Each `expectTypeOf` fails the type check
// when the inference regresses to `any` or `unknown`.
import { createScriptedModelClient } from "@agent-lattice/testing";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod/v4";
import {
  type AgentLike,
  agentTool,
  createAgentFactory,
  createBareAgent,
  type SDKMessage,
  type SDKResultMessage,
  type ToolDefinition,
  tool,
} from "../../src/index.js";

const modelClient = createScriptedModelClient();

describe("tool()", () => {
  it("infers the handler's input from the schema", () => {
    const add = tool("add", "adds", z.object({ a: z.number(), b: z.number() }), async input => {
      expectTypeOf(input).toEqualTypeOf<{ a: number; b: number }>();
      return { content: String(input.a + input.b) };
    });
    expectTypeOf(add).toEqualTypeOf<ToolDefinition<{ a: number; b: number }, unknown>>();
  });

  it("tool<Ctx>() types the handler's context", () => {
    type Qc = { patientRecordId: string };
    const qcTool = tool<Qc>();
    const read = qcTool("read", "reads", z.object({}), async (_input, { context }) => {
      expectTypeOf(context).toEqualTypeOf<Qc | undefined>();
      return { content: context?.patientRecordId ?? "" };
    });
    expectTypeOf(read).toEqualTypeOf<ToolDefinition<Record<string, never>, Qc>>();
  });

  it("isConcurrencySafe receives the parsed input type", () => {
    tool("search", "s", z.object({ query: z.string() }), async () => ({ content: "" }), {
      isConcurrencySafe: input => {
        expectTypeOf(input).toEqualTypeOf<{ query: string }>();
        return true;
      },
    });
  });
});

describe("outputSchema → structuredResult", () => {
  const verdict = z.object({ approved: z.boolean(), issues: z.array(z.string()) });

  it("prompt() returns the schema's type as structuredResult, not unknown", async () => {
    const reviewer = createBareAgent({ model: "m", modelClient, outputSchema: verdict });
    const result = await reviewer.prompt("review");
    expectTypeOf(result).toEqualTypeOf<SDKResultMessage<{ approved: boolean; issues: string[] }>>();
    expectTypeOf(result.structuredResult).toEqualTypeOf<
      { approved: boolean; issues: string[] } | undefined
    >();
  });

  it("a spec's spawned sessions keep the output type", async () => {
    const { defineAgent } = createAgentFactory();
    const spec = defineAgent({ model: "m", modelClient, outputSchema: verdict });
    const result = await spec.spawn().prompt("review");
    expectTypeOf(result.structuredResult).toEqualTypeOf<
      { approved: boolean; issues: string[] } | undefined
    >();
  });

  it("without an outputSchema structuredResult stays unknown", async () => {
    const agent = createBareAgent({ model: "m", modelClient });
    expectTypeOf((await agent.prompt("x")).structuredResult).toEqualTypeOf<unknown>();
  });

  it("an agent is an AgentLike, and a typed one is still assignable where any agent is accepted", () => {
    const reviewer = createBareAgent({ model: "m", modelClient, outputSchema: verdict });
    expectTypeOf(reviewer).toMatchTypeOf<AgentLike<unknown, SDKMessage>>();
  });
});

describe("typed delegation", () => {
  it("mapInput receives inputSchema's type", () => {
    const judge = createBareAgent({ model: "m", modelClient });
    agentTool("judge", judge, {
      inputSchema: z.object({ caseSummary: z.string(), documents: z.array(z.object({ title: z.string() })) }),
      mapInput: input => {
        expectTypeOf(input).toEqualTypeOf<{ caseSummary: string; documents: { title: string }[] }>();
        return input.caseSummary;
      },
    });
  });
});
