// Connection lifecycle (M1): close() ends the child process and is idempotent, `await using` closes, nothing is
// left running afterwards, later calls fail at once, and failed connects leave nothing behind.
import { createBareAgent } from "@agent-lattice/core";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { connectMCPStdioServer, MCPConnectionError } from "../src/index.js";
import {
  activeResources,
  EVERYTHING,
  isAlive,
  leftovers,
  mockModel,
  nothingLeftSince,
  toolResults,
} from "./helpers.js";

const everythingServer = { command: process.execPath, args: [EVERYTHING] };

describe("close()", () => {
  it("ends the server process, leaves no handle, socket or timer behind, and is idempotent", async () => {
    const baseline = activeResources();
    const mcp = await connectMCPStdioServer(everythingServer, { namePrefix: "everything", stderr: "ignore" });
    const pid = mcp.pid!;
    expect(isAlive(pid)).toBe(true);
    const echo = mcp.tools.find(definition => definition.name === "everything_echo")!;
    expect(await echo.handler({ message: "x" }, { signal: new AbortController().signal } as never)).toEqual({
      content: "Echo: x",
    });
    expect(leftovers(baseline)).toMatchObject({ ProcessWrap: 1 });
    await Promise.all([mcp.close(), mcp.close()]);
    expect(isAlive(pid)).toBe(false);
    expect(mcp.pid).toBeUndefined();
    await nothingLeftSince(baseline);
    await mcp.close();
  });

  it("calls after close() fail at once with an is_error result saying the host closed the connection", async () => {
    const mcp = await connectMCPStdioServer(everythingServer, { namePrefix: "everything", stderr: "ignore" });
    const model = await mockModel([
      toolTurn({ name: "everything_echo", input: { message: "late" } }),
      textTurn("ok"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
    await mcp.close();
    await agent.prompt("go");
    expect(toolResults(model.requests[1]!.body)[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: expect.any(String),
      is_error: true,
      content:
        'MCP server "everything" is not connected (the host closed the connection), so tool "echo" did not run. The host must reconnect it.',
    });
  });

  it("`await using` closes the connection at the end of the block", async () => {
    let pid = 0;
    {
      await using mcp = await connectMCPStdioServer(everythingServer, { stderr: "ignore" });
      pid = mcp.pid!;
      expect(isAlive(pid)).toBe(true);
      expect(mcp.tools.length).toBeGreaterThan(5);
    }
    expect(isAlive(pid)).toBe(false);
  });

  it("one connection serves several agents; closing the agents' queries does not close it", async () => {
    await using mcp = await connectMCPStdioServer(everythingServer, { namePrefix: "e", stderr: "ignore" });
    const model = await mockModel([
      toolTurn({ name: "e_echo", input: { message: "one" } }),
      textTurn("1"),
      toolTurn({ name: "e_echo", input: { message: "two" } }),
      textTurn("2"),
    ]);
    const first = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
    const second = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
    expect((await first.prompt("a")).result).toBe("1");
    expect((await second.prompt("b")).result).toBe("2");
    expect(toolResults(model.requests[3]!.body)[0]!.content).toBe("Echo: two");
    expect(isAlive(mcp.pid!)).toBe(true);
  });
});

describe("connect failures are typed, say what to do, and leave nothing running", () => {
  it("a command that does not exist", async () => {
    const failure = await connectMCPStdioServer({ command: "agent-lattice-no-such-server" }).catch(
      error => error,
    );
    expect(failure).toBeInstanceOf(MCPConnectionError);
    expect(failure.code).toBe("mcp_connection");
    expect(failure.message).toContain('the command "agent-lattice-no-such-server" was not found');
  });

  it("a server that exits during the handshake: its stderr explains why", async () => {
    const failure = await connectMCPStdioServer(
      { command: process.execPath, args: ["-e", "console.error('config.json is missing'); process.exit(2)"] },
      { stderr: "ignore" },
    ).catch(error => error);
    expect(failure).toBeInstanceOf(MCPConnectionError);
    expect(failure.message).toContain("config.json is missing");
  });

  it("a program that never answers the handshake: connectTimeoutMs, then the process is gone", async () => {
    const baseline = activeResources();
    const failure = await connectMCPStdioServer(
      { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] },
      { connectTimeoutMs: 300, stderr: "ignore" },
    ).catch(error => error);
    expect(failure).toBeInstanceOf(MCPConnectionError);
    expect(failure.message).toContain("did not complete the MCP handshake within 300 ms");
    await nothingLeftSince(baseline, 6000);
  });

  it("bad options throw InvalidOptionError before anything starts", async () => {
    await expect(connectMCPStdioServer({ command: "" })).rejects.toThrow(
      /command must be the program to run/,
    );
    await expect(connectMCPStdioServer({ command: "node", args: "x" as never })).rejects.toThrow(
      /args must be an array/,
    );
    await expect(connectMCPStdioServer({ command: "node" }, { namePrefix: "my docs" })).rejects.toThrow(
      /namePrefix must be 1-32 letters, digits, _ or -/,
    );
    await expect(connectMCPStdioServer({ command: "node" }, { timeoutMs: 0 })).rejects.toThrow(
      /timeoutMs must be a positive/,
    );
    await expect(connectMCPStdioServer({ command: "node" }, { bogus: 1 } as never)).rejects.toMatchObject({
      code: "invalid_option",
    });
  });
});
