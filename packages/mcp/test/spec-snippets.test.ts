// The README's "MCP Tools" snippets, run as written. createAgent is core's factory without the umbrella's default
// workspace (an adapter does not import the built-in tools); the provider is the mock Anthropic server.
// FEATURES M1, M2, M3.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createAgentFactory } from "@agent-lattice/core";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  connectMCPStdioServer,
  connectMCPStreamableHTTPServer,
  createMCPTools,
  MCPAuthorizationRequiredError,
} from "../src/index.js";
import { eventually, fixture, mockModel, toolResults } from "./helpers.js";
import { TestOAuthClientProvider } from "./oauth-client.js";

const { createAgent } = createAgentFactory();
let http: ChildProcess;
let base = "";

beforeAll(async () => {
  let output = "";
  http = spawn(process.execPath, [fixture("oauth-server.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  http.stdout!.on("data", chunk => {
    output += chunk;
  });
  await eventually(() => /listening \d+/.test(output), 15_000, "the HTTP MCP server to listen");
  base = `http://127.0.0.1:${/listening (\d+)/.exec(output)![1]}`;
});

afterAll(async () => {
  http.kill();
  if (http.exitCode === null) await new Promise(resolve => http.once("exit", resolve));
});

describe("README: MCP Tools", () => {
  it("M1: connectMCPStdioServer({ command: 'node', args: ['./mcp-server.js'] }, { namePrefix: 'docs' })", async () => {
    const model = await mockModel([
      toolTurn({ name: "docs_search", input: { query: "install" } }),
      textTurn("Install with pnpm add agent-lattice."),
    ]);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const cwd = process.cwd();
    process.chdir(fileURLToPath(new URL("./fixtures/docs/", import.meta.url)));
    try {
      // --- the snippet (apiKey and baseURL point at the mock provider) ---
      const mcp = await connectMCPStdioServer(
        {
          command: "node",
          args: ["./mcp-server.js"],
        },
        {
          namePrefix: "docs",
        },
      );

      const agent = createAgent({
        apiKey: "test-key",
        baseURL: model.url,
        model: "deepseek-v4-flash",
        tools: mcp.tools,
      });

      try {
        const result = await agent.prompt("Search the docs for installation steps.");
        console.log(result.result);
      } finally {
        await mcp.close();
      }
      // --- end of snippet ---
      expect(log).toHaveBeenCalledWith("Install with pnpm add agent-lattice.");
      expect(model.requests[0]!.body.tools).toEqual([
        {
          // the last tool carries the prompt-cache breakpoint of the stable prefix
          cache_control: { type: "ephemeral" },
          name: "docs_search",
          description: "Search the docs",
          input_schema: expect.objectContaining({
            type: "object",
            properties: { query: { type: "string", description: "What to look for" } },
            required: ["query"],
          }),
        },
      ]);
      expect(toolResults(model.requests[1]!.body)[0]).toMatchObject({
        content: "installation: Install with `pnpm add agent-lattice`, then set DEEPSEEK_API_KEY.",
      });
    } finally {
      process.chdir(cwd);
      log.mockRestore();
    }
  });

  it("M3: createMCPTools(client) for a client the host already manages", async () => {
    const client = new Client({ name: "host-app", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fixture("docs/mcp-server.js")],
        stderr: "ignore",
      }),
    );
    try {
      const model = await mockModel([
        toolTurn({ name: "search", input: { query: "teams" } }),
        textTurn("found"),
      ]);
      const agent = createAgent({
        apiKey: "test-key",
        baseURL: model.url,
        model: "deepseek-v4-flash",
        tools: await createMCPTools(client),
      });
      expect((await agent.prompt("teams?")).result).toBe("found");
      expect(toolResults(model.requests[1]!.body)[0]!.content).toContain("createTeam()");
    } finally {
      await client.close();
    }
  });

  it("M2: connectMCPStreamableHTTPServer(url, { namePrefix: 'remote', requestInit: { headers: { 'X-Workspace': 'demo' } } })", async () => {
    const url = `${base}/public/mcp`;
    const model = await mockModel([
      toolTurn({ name: "remote_search", input: { query: "teams" } }),
      textTurn("ok"),
    ]);
    // --- the snippet ---
    const mcp = await connectMCPStreamableHTTPServer(url, {
      namePrefix: "remote",
      requestInit: {
        headers: {
          "X-Workspace": "demo",
        },
      },
    });

    const agent = createAgent({
      apiKey: "test-key",
      baseURL: model.url,
      model: "deepseek-v4-flash",
      tools: mcp.tools,
    });
    // --- end of snippet ---
    try {
      await agent.prompt("search");
      expect(toolResults(model.requests[1]!.body)[0]).toMatchObject({
        content: 'Results for "teams" in workspace demo',
      });
    } finally {
      await mcp.close();
    }
  });

  it("M2: connectMCPStreamableHTTPServer(url, { authProvider }) with an official OAuthClientProvider", async () => {
    const url = `${base}/mcp`;
    const authProvider = new TestOAuthClientProvider();
    // First run: the user authorizes (the provider's redirect), the host finishes with the code.
    const pending = await connectMCPStreamableHTTPServer(url, { authProvider }).catch(error => error);
    expect(pending).toBeInstanceOf(MCPAuthorizationRequiredError);
    await pending.finishAuth(authProvider.code!);
    // --- the snippet ---
    const mcp = await connectMCPStreamableHTTPServer(url, {
      authProvider,
    });
    // --- end of snippet ---
    try {
      expect(mcp.server).toBe("secure-docs");
      expect(mcp.tools.map(definition => definition.name).sort()).toEqual(["search", "whoami"]);
    } finally {
      await mcp.close();
    }
  });
});
