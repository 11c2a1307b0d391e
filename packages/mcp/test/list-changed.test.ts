// notifications/tools/list_changed: a server that changes its tool list during a session. Agents see the new
// list before their next model turn (through core's ToolSource seam), within the same query.
import { createBareAgent, tool } from "@agent-lattice/core";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { connectMCPStdioServer, type MCPStdioConnection, type MCPToolsOptions } from "../src/index.js";
import { fixture, mockModel, offeredTools, toolResults } from "./helpers.js";

const open: MCPStdioConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map(connection => connection.close()));
});

async function faulty(options: MCPToolsOptions = {}): Promise<MCPStdioConnection> {
  const connection = await connectMCPStdioServer(
    { command: process.execPath, args: [fixture("faulty-server.mjs")] },
    { namePrefix: "faulty", stderr: "ignore", ...options },
  );
  open.push(connection);
  return connection;
}

describe("a server that changes its tool list during a session (list_changed)", () => {
  it("the next model turn of the same query offers the new list, and the new tool can be called", async () => {
    const mcp = await faulty();
    const model = await mockModel([
      toolTurn({ name: "faulty_add_tool", input: {} }),
      toolTurn({ name: "faulty_late", input: { n: 2 } }),
      toolTurn({ name: "faulty_remove_echo", input: {} }),
      textTurn("done"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
    const result = await agent.prompt("go");
    expect(result.subtype).toBe("success");
    expect(offeredTools(model.requests[0]!.body)).not.toContain("faulty_late");
    expect(offeredTools(model.requests[1]!.body)).toContain("faulty_late");
    expect(toolResults(model.requests[2]!.body)[0]).toMatchObject({ content: "late 2" });
    expect(offeredTools(model.requests[2]!.body)).toContain("faulty_echo");
    expect(offeredTools(model.requests[3]!.body)).not.toContain("faulty_echo");
    expect(mcp.tools.map(definition => definition.name)).toContain("faulty_late");
    expect(mcp.tools.map(definition => definition.name)).not.toContain("faulty_echo");
  });

  it("keeps the host's other tools and the order of the list; a filtered-out tool stays out", async () => {
    const mcp = await faulty({ filter: info => info.name !== "late" });
    const local = tool("local", "a host tool", z.object({}), async () => ({ content: "local" }));
    const model = await mockModel([toolTurn({ name: "faulty_add_tool", input: {} }), textTurn("done")]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: model.url,
      model: "m",
      tools: [local, ...mcp.tools],
    });
    await agent.prompt("go");
    expect(offeredTools(model.requests[1]!.body)[0]).toBe("local");
    expect(offeredTools(model.requests[1]!.body)).not.toContain("faulty_late");
    expect(offeredTools(model.requests[1]!.body)).toEqual(offeredTools(model.requests[0]!.body));
  });

  it("with listChanged: false the list stays as connected until refreshTools()", async () => {
    const mcp = await faulty({ listChanged: false });
    const model = await mockModel([
      toolTurn({ name: "faulty_add_tool", input: {} }),
      textTurn("one"),
      textTurn("two"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
    await agent.prompt("go");
    expect(offeredTools(model.requests[1]!.body)).not.toContain("faulty_late");
    await mcp.refreshTools();
    await agent.prompt("again");
    expect(offeredTools(model.requests[2]!.body)).toContain("faulty_late");
  });

  it("a change whose names collide with another tool of the agent is a clear error; the agent keeps its tools", async () => {
    const mcp = await faulty();
    const clash = tool("faulty_late", "a host tool with the same name", z.object({}), async () => ({
      content: "",
    }));
    const model = await mockModel([toolTurn({ name: "faulty_add_tool", input: {} }), textTurn("after")]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: model.url,
      model: "m",
      tools: [clash, ...mcp.tools],
    });
    const failure = await agent.prompt("go").catch(error => error);
    expect(failure).toMatchObject({ code: "invalid_option" });
    expect(failure.message).toContain('The tool list of MCP server "faulty" changed');
    expect(failure.message).toContain('two tools are named "faulty_late"');
    const next = await agent.prompt("again");
    expect(next.result).toBe("after");
    expect(offeredTools(model.requests[1]!.body)).toEqual(offeredTools(model.requests[0]!.body));
  });
});
