// M2 OAuth: a local authorization server and a protected MCP server from the SDK's own server-side auth pieces
// (test/fixtures/oauth-server.mjs, its own process); the client completes the flow through an OAuthClientProvider
// (test/oauth-client.ts) and calls a tool.
import { type ChildProcess, spawn } from "node:child_process";
import { createBareAgent } from "@agent-lattice/core";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  connectMCPStreamableHTTPServer,
  MCPAuthorizationRequiredError,
  MCPConnectionError,
  type MCPStreamableHTTPConnection,
} from "../src/index.js";
import { eventually, fixture, mockModel, toolResults } from "./helpers.js";
import { TestOAuthClientProvider } from "./oauth-client.js";

/** The protected server process and its test controls. */
const server = {
  process: undefined as ChildProcess | undefined,
  url: "",
  base: "",
  async admin(action: "expire-access-tokens" | "revoke-refresh-tokens"): Promise<void> {
    await (await fetch(`${this.base}/test/${action}`, { method: "POST" })).json();
  },
  async state(): Promise<{ grants: string[]; seenHeaders: Array<Record<string, string>> }> {
    return (await (await fetch(`${this.base}/test/state`)).json()) as {
      grants: string[];
      seenHeaders: Array<Record<string, string>>;
    };
  },
};
const open: MCPStreamableHTTPConnection[] = [];

beforeEach(async () => {
  let output = "";
  server.process = spawn(process.execPath, [fixture("oauth-server.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  server.process.stdout!.on("data", chunk => {
    output += chunk;
  });
  await eventually(() => /listening \d+/.test(output), 15_000, "the OAuth server to listen");
  server.base = `http://127.0.0.1:${/listening (\d+)/.exec(output)![1]}`;
  server.url = `${server.base}/mcp`;
});

afterEach(async () => {
  await Promise.all(open.splice(0).map(connection => connection.close()));
  const child = server.process!;
  child.kill();
  if (child.exitCode === null) await new Promise(resolve => child.once("exit", resolve));
});

/** Connects through the whole flow: authorization required → user approves → finishAuth → connect again. */
async function authorizedConnection(provider: TestOAuthClientProvider): Promise<MCPStreamableHTTPConnection> {
  const first = await connectMCPStreamableHTTPServer(server.url, {
    authProvider: provider,
    namePrefix: "secure",
  }).catch(error => error);
  expect(first).toBeInstanceOf(MCPAuthorizationRequiredError);
  expect(provider.code).toBeTruthy();
  await first.finishAuth(provider.code!);
  const mcp = await connectMCPStreamableHTTPServer(server.url, {
    authProvider: provider,
    namePrefix: "secure",
    requestInit: { headers: { "X-Workspace": "demo" } },
  });
  open.push(mcp);
  return mcp;
}

describe("OAuth through the official OAuthClientProvider (M2)", () => {
  it("completes the authorization-code flow (registration, PKCE, token) and calls a protected tool", async () => {
    const provider = new TestOAuthClientProvider();
    const mcp = await authorizedConnection(provider);
    expect((await server.state()).grants).toEqual(["authorization_code"]);
    expect(provider.stored?.access_token).toBeTruthy();
    const model = await mockModel([toolTurn({ name: "secure_whoami", input: {} }), textTurn("done")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
    await agent.prompt("who am I?");
    const clientId = (provider.clientInfo as { client_id: string }).client_id;
    expect(toolResults(model.requests[1]!.body)[0]).toMatchObject({
      content: `authorized client ${clientId}`,
    });
    // requestInit headers travel with every MCP request, next to the bearer token.
    expect((await server.state()).seenHeaders.at(-1)).toMatchObject({
      "x-workspace": "demo",
      authorization: `Bearer ${provider.stored!.access_token}`,
    });
  });

  it("an access token that expired mid-session is refreshed with the refresh token, and the call goes through", async () => {
    const provider = new TestOAuthClientProvider();
    const mcp = await authorizedConnection(provider);
    const before = provider.stored!.access_token;
    await server.admin("expire-access-tokens");
    const whoami = mcp.tools.find(definition => definition.name === "secure_whoami")!;
    const result = await whoami.handler({}, { signal: new AbortController().signal } as never);
    expect(result).toMatchObject({ content: expect.stringMatching(/^authorized client /) });
    expect(result).not.toHaveProperty("isError");
    expect((await server.state()).grants).toEqual(["authorization_code", "refresh_token"]);
    expect(provider.stored!.access_token).not.toBe(before);
  });

  it("an expired token that cannot be refreshed: the call is an is_error result asking the host to re-authorize", async () => {
    const provider = new TestOAuthClientProvider();
    const mcp = await authorizedConnection(provider);
    await server.admin("expire-access-tokens");
    await server.admin("revoke-refresh-tokens");
    const whoami = mcp.tools.find(definition => definition.name === "secure_whoami")!;
    const result = await whoami.handler({}, { signal: new AbortController().signal } as never);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('MCP server "secure" refused tool "whoami": authorization failed');
    expect(result.content).toContain("The host must re-authorize this connection.");
  });

  it("a bad token without a refresh token: connecting throws MCPAuthorizationRequiredError, after the provider redirected", async () => {
    const provider = new TestOAuthClientProvider();
    provider.stored = { access_token: "forged", token_type: "bearer" };
    const failure = await connectMCPStreamableHTTPServer(server.url, { authProvider: provider }).catch(
      error => error,
    );
    expect(failure).toBeInstanceOf(MCPAuthorizationRequiredError);
    expect(failure.code).toBe("mcp_authorization_required");
    expect(failure.message).toContain("requires OAuth authorization that the authProvider does not hold");
    expect(failure.message).toContain("error.finishAuth(code)");
    expect(provider.redirects).toBe(1);
  });

  it("without an authProvider, a protected server is a connection error that says what to pass", async () => {
    const failure = await connectMCPStreamableHTTPServer(server.url).catch(error => error);
    expect(failure).toBeInstanceOf(MCPConnectionError);
    expect(failure.message).toContain(
      "requires authorization (HTTP 401). Pass an OAuthClientProvider as authProvider",
    );
  });
});
