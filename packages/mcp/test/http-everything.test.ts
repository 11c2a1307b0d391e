// M2 against a real server no one here wrote: @modelcontextprotocol/server-everything over Streamable HTTP on
// loopback, driven by an agent whose model is the mock Anthropic server.
import { type ChildProcess, spawn } from "node:child_process";
import { createBareAgent, type ImageBlock } from "@agent-lattice/core";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMCPStreamableHTTPServer, MCPConnectionError } from "../src/index.js";
import {
  activeResources,
  EVERYTHING,
  eventually,
  freePort,
  mockModel,
  nothingLeftSince,
  toolResults,
} from "./helpers.js";

let server: ChildProcess;
let url: string;
let log = "";

beforeAll(async () => {
  const port = await freePort();
  server = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", chunk => {
    log += chunk;
  });
  server.stderr!.on("data", chunk => {
    log += chunk;
  });
  await eventually(() => log.includes(`listening on port ${port}`), 15_000, "server-everything to listen");
  url = `http://127.0.0.1:${port}/mcp`;
});

afterAll(async () => {
  server.kill();
  await new Promise(resolve => server.once("exit", resolve));
});

describe("server-everything over Streamable HTTP (M2)", () => {
  it("an agent lists and calls its tools; the results reach the model", async () => {
    const mcp = await connectMCPStreamableHTTPServer(url, { namePrefix: "remote" });
    try {
      expect(mcp.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const model = await mockModel([
        toolTurn([
          { name: "remote_echo", input: { message: "over http" } },
          { name: "remote_get-tiny-image", input: {} },
        ]),
        textTurn("done"),
      ]);
      const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
      expect((await agent.prompt("go")).result).toBe("done");
      const offered = (model.requests[0]!.body.tools as Array<{ name: string }>).map(spec => spec.name);
      expect(offered).toEqual(
        expect.arrayContaining(["remote_echo", "remote_get-sum", "remote_get-tiny-image"]),
      );
      const [echo, image] = toolResults(model.requests[1]!.body);
      expect(echo!.content).toBe("Echo: over http");
      expect((image!.content as ImageBlock[]).some(block => block.type === "image")).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it("close() terminates the MCP session and leaves no socket or timer behind; later calls fail at once", async () => {
    const baseline = activeResources();
    const mcp = await connectMCPStreamableHTTPServer(url, { namePrefix: "remote" });
    const sessionId = mcp.sessionId!;
    const echo = mcp.tools.find(definition => definition.name === "remote_echo")!;
    expect(await echo.handler({ message: "x" }, { signal: new AbortController().signal } as never)).toEqual({
      content: "Echo: x",
    });
    await mcp.close();
    await mcp.close();
    await eventually(
      () => log.includes(`Transport closed for session ${sessionId}`),
      5000,
      "the session to end",
    );
    await nothingLeftSince(baseline);
    expect(
      await echo.handler({ message: "y" }, { signal: new AbortController().signal } as never),
    ).toMatchObject({
      isError: true,
      content: expect.stringContaining("(the host closed the connection)"),
    });
  });

  it("a URL where no MCP server answers is a typed connection error", async () => {
    const failure = await connectMCPStreamableHTTPServer(`${url.replace(/\/mcp$/, "")}/nothing-here`).catch(
      error => error,
    );
    expect(failure).toBeInstanceOf(MCPConnectionError);
    expect(failure.message).toMatch(/answered HTTP 404/);
    const refused = await connectMCPStreamableHTTPServer(`http://127.0.0.1:${await freePort()}/mcp`).catch(
      error => error,
    );
    expect(refused).toBeInstanceOf(MCPConnectionError);
    expect(refused.message).toMatch(/Could not connect to MCP server .*fetch failed/);
  });
});
