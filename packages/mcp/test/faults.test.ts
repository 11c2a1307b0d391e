// M1 lifecycle: servers that crash mid-call, hang past the timeout, return malformed content, or are cancelled.
// The server is a real MCP server process (test/fixtures/faulty-server.mjs, built on the SDK's McpServer).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBareAgent } from "@agent-lattice/core";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectMCPStdioServer, type MCPStdioConnection, type MCPStdioServerOptions } from "../src/index.js";
import { fixture, isAlive, mockModel, toolResults } from "./helpers.js";

let dir: string;
let events: string;
const open: MCPStdioConnection[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-mcp-faults-"));
  events = join(dir, "events.txt");
});

afterEach(async () => {
  await Promise.all(open.splice(0).map(connection => connection.close()));
  await rm(dir, { recursive: true, force: true });
});

async function faulty(options: MCPStdioServerOptions = {}): Promise<MCPStdioConnection> {
  const connection = await connectMCPStdioServer(
    { command: process.execPath, args: [fixture("faulty-server.mjs")], env: { EVENTS_FILE: events } },
    { namePrefix: "faulty", stderr: "ignore", ...options },
  );
  open.push(connection);
  return connection;
}

const eventLines = async () => (await readFile(events, "utf8").catch(() => "")).split("\n").filter(Boolean);

async function agentFor(connection: MCPStdioConnection, script: Parameters<typeof mockModel>[0]) {
  const model = await mockModel(script);
  const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: connection.tools });
  return { model, agent };
}

describe("a server that crashes in the middle of a call", () => {
  it("answers that call with an is_error result naming the server and its last stderr, and later calls fail at once", async () => {
    const mcp = await faulty();
    const pid = mcp.pid!;
    const { model, agent } = await agentFor(mcp, [
      toolTurn({ name: "faulty_crash", input: {} }),
      toolTurn({ name: "faulty_echo", input: { text: "still there?" } }),
      textTurn("the server is gone"),
    ]);
    const result = await agent.prompt("go");
    expect(result.subtype).toBe("success");
    const [crashed] = toolResults(model.requests[1]!.body);
    expect(crashed!.is_error).toBe(true);
    expect(crashed!.content).toContain('MCP server "faulty" stopped while tool "crash" was running');
    expect(crashed!.content).toContain(`pid ${pid}`);
    expect(crashed!.content).toContain("fatal: the disk is on fire");
    const [later] = toolResults(model.requests[2]!.body);
    expect(later).toMatchObject({ is_error: true });
    expect(later!.content).toMatch(
      /^MCP server "faulty" is not connected \(the server went away; .*\), so tool "echo" did not run/s,
    );
    expect(isAlive(pid)).toBe(false);
    await mcp.close();
    await mcp.close();
  });
});

describe("a server that hangs", () => {
  it("past timeoutMs: the call is cancelled on the server and answered with an is_error result; the connection goes on", async () => {
    const mcp = await faulty({ timeoutMs: 300 });
    const { model, agent } = await agentFor(mcp, [
      toolTurn({ name: "faulty_hang", input: {} }),
      toolTurn({ name: "faulty_echo", input: { text: "after" } }),
      textTurn("done"),
    ]);
    await agent.prompt("go");
    const [hung] = toolResults(model.requests[1]!.body);
    expect(hung).toMatchObject({ is_error: true });
    expect(hung!.content).toContain('MCP tool "hang" on server "faulty" did not answer within 300 ms');
    expect(toolResults(model.requests[2]!.body)[0]).toMatchObject({ content: "echo: after" });
    await expect.poll(eventLines).toContainEqual(expect.stringMatching(/^hang cancelled /));
  });

  it("the query's AbortSignal cancels the MCP request", async () => {
    const mcp = await faulty();
    const { agent } = await agentFor(mcp, [toolTurn({ name: "faulty_hang", input: {} }), textTurn("unused")]);
    const controller = new AbortController();
    const running = agent.prompt("go", { signal: controller.signal });
    await expect.poll(eventLines).toContainEqual(expect.stringMatching(/^hang started /));
    controller.abort();
    const result = await running;
    expect(result.subtype).toBe("error_abort");
    await expect.poll(eventLines).toContainEqual(expect.stringMatching(/^hang cancelled /));
    // The connection survives a cancelled call.
    const echo = mcp.tools.find(definition => definition.name === "faulty_echo")!;
    expect(await echo.handler({ text: "alive" }, { signal: new AbortController().signal } as never)).toEqual({
      content: "echo: alive",
    });
  });
});

describe("a server that returns malformed content", () => {
  it.each([
    ["unknown_type", /content\.0 matches none of the MCP content block shapes/],
    ["missing_text", /content\.0 matches none of the MCP content block shapes/],
  ])(
    "%s: an is_error result saying the server's result was malformed; the connection goes on",
    async (kind, detail) => {
      const mcp = await faulty();
      const { model, agent } = await agentFor(mcp, [
        toolTurn({ name: "faulty_malformed", input: { kind } }),
        toolTurn({ name: "faulty_echo", input: { text: "next" } }),
        textTurn("done"),
      ]);
      await agent.prompt("go");
      const [bad] = toolResults(model.requests[1]!.body);
      expect(bad).toMatchObject({ is_error: true });
      expect(bad!.content).toContain('MCP server "faulty" returned a malformed result for tool "malformed"');
      expect(bad!.content).toMatch(detail);
      expect(toolResults(model.requests[2]!.body)[0]).toMatchObject({ content: "echo: next" });
    },
  );
});
