import { createAgent, tool } from "agent-lattice";
import {
  createScriptedModelClient,
  rateLimited,
  startMockAnthropicServer,
  streamError,
  textTurn,
  toolTurn,
} from "agent-lattice/testing";
import { expect, it } from "vitest";
import { z } from "zod/v4";

// The agent under test: one tool that looks an order up.
const lookupOrder = tool(
  "lookup_order",
  "Find an order by id",
  z.object({ id: z.string() }),
  async ({ id }) => ({
    content: JSON.stringify({ id, status: "shipped" }),
  }),
);

it("answers from the tool result (mock server: real HTTP and SSE through the built-in client)", async () => {
  const server = await startMockAnthropicServer({
    script: [toolTurn({ name: "lookup_order", input: { id: "42" } }), textTurn("Order 42 has shipped.")],
  });
  try {
    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      tools: [lookupOrder],
      workspace: false, // only lookup_order: no file system, no shell
    });
    const result = await agent.prompt("Where is order 42?");

    expect(result.subtype).toBe("success");
    expect(result.result).toBe("Order 42 has shipped.");
    // What the model was sent: the tool's result went back in the second request.
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body.messages.at(-1).content[0]).toMatchObject({
      type: "tool_result",
      content: '{"id":"42","status":"shipped"}',
    });
  } finally {
    await server.close();
  }
});

it("survives a 429 (retried) and reports a torn stream as an error result", async () => {
  const server = await startMockAnthropicServer({
    script: [rateLimited(), textTurn("First answer."), streamError(textTurn("Second answ"), 4)],
  });
  try {
    const agent = createAgent({ apiKey: "test-key", baseURL: server.url, model: "m", workspace: false });
    expect((await agent.prompt("One?")).result).toBe("First answer.");
    const failed = await agent.prompt("Two?");
    expect(failed.subtype).toBe("error_during_execution");
    expect(failed.error?.message).toContain("overloaded_error");
  } finally {
    await server.close();
  }
});

it("runs in-process with the scripted client (no HTTP at all)", async () => {
  const model = createScriptedModelClient({
    script: [toolTurn({ name: "lookup_order", input: { id: "7" } }), textTurn("Order 7 has shipped.")],
  });
  const agent = createAgent({ model: "m", modelClient: model, tools: [lookupOrder], workspace: false });

  expect((await agent.prompt("Where is order 7?")).result).toBe("Order 7 has shipped.");
  expect(model.requests[0]?.tools.map(t => t.name)).toEqual(["lookup_order"]);
});
