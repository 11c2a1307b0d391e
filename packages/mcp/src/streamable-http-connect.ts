import { InvalidOptionError } from "@agent-lattice/core";
import { messageOf } from "./call-failure.js";
import { defaultClientInfo } from "./client-info.js";
import { openConnection } from "./connection.js";
import { MCPAuthorizationRequiredError, MCPConnectionError } from "./errors.js";
import {
  HTTP_OPTION_KEYS,
  type MCPStreamableHTTPServerOptions,
  resolveConnectTimeout,
  resolveToolSettings,
} from "./options.js";
import type { MCPStreamableHTTPConnection } from "./streamable-http.js";

/** How long close() waits for the server to confirm the end of the session. */
const TERMINATE_WAIT_MS = 2000;

/** The implementation of connectMCPStreamableHTTPServer() (see streamable-http.ts), loaded on its first call. */
export async function connectStreamableHTTP(
  url: string | URL,
  options: MCPStreamableHTTPServerOptions = {},
): Promise<MCPStreamableHTTPConnection> {
  const label = "connectMCPStreamableHTTPServer options";
  const endpoint = parseEndpoint(url);
  const settings = resolveToolSettings(options, HTTP_OPTION_KEYS, label);
  const connectTimeoutMs = resolveConnectTimeout(options, label);
  if (
    options.requestInit !== undefined &&
    (options.requestInit === null || typeof options.requestInit !== "object")
  ) {
    throw new InvalidOptionError(`${label}.requestInit must be a fetch RequestInit object (headers, …).`);
  }
  if (options.authProvider !== undefined && typeof options.authProvider?.tokens !== "function") {
    throw new InvalidOptionError(
      `${label}.authProvider must be an MCP OAuthClientProvider (tokens(), saveTokens(), …).`,
    );
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new InvalidOptionError(`${label}.fetch must be a fetch function.`);
  }
  // Loaded here, not at import: importing this package must not load the MCP SDK.
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  const transport = new StreamableHTTPClientTransport(endpoint, {
    ...(options.requestInit ? { requestInit: options.requestInit } : {}),
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const where = endpoint.href;
  const connection = await openConnection({
    client: new Client(options.clientInfo ?? defaultClientInfo(), { capabilities: {} }),
    transport,
    label: where,
    settings,
    connectTimeoutMs,
    describeLoss: () => "",
    connectError: error =>
      httpConnectError(error, where, connectTimeoutMs, options.authProvider !== undefined, code =>
        transport.finishAuth(code),
      ),
    beforeClose: () => terminate(() => transport.terminateSession()),
  });
  return Object.defineProperty(connection, "sessionId", {
    enumerable: true,
    get: () => transport.sessionId,
  }) as MCPStreamableHTTPConnection;
}

function parseEndpoint(url: string | URL): URL {
  try {
    const endpoint = url instanceof URL ? url : new URL(String(url));
    if (endpoint.protocol === "http:" || endpoint.protocol === "https:") return endpoint;
  } catch {}
  throw new InvalidOptionError(
    `connectMCPStreamableHTTPServer(url): expected an http(s) URL such as "https://mcp.example.com/mcp", got ${JSON.stringify(String(url))}.`,
  );
}

/** Ends the session (HTTP DELETE), without letting a slow or gone server hold close() up. */
async function terminate(end: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    end().catch(() => {}),
    new Promise<void>(resolve => {
      timer = setTimeout(resolve, TERMINATE_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
}

function httpConnectError(
  error: unknown,
  where: string,
  timeoutMs: number,
  hasAuthProvider: boolean,
  finishAuth: (code: string) => Promise<void>,
): Error {
  const name = `MCP server ${where}`;
  const code = (error as { code?: unknown } | null)?.code;
  const errorName = error instanceof Error ? error.name || error.constructor?.name : "";
  if (
    error instanceof Error &&
    (errorName === "UnauthorizedError" || error.constructor?.name === "UnauthorizedError")
  ) {
    return new MCPAuthorizationRequiredError(
      where,
      `${name} requires OAuth authorization that the authProvider does not hold (no token, or one the server ` +
        "rejected and that could not be refreshed). The provider's redirectToAuthorization() was called with the " +
        "authorization URL: once the user approves, pass the authorization code to error.finishAuth(code), then " +
        "connect again.",
      finishAuth,
      { cause: error },
    );
  }
  if (code === 401) {
    return new MCPConnectionError(
      where,
      hasAuthProvider
        ? `${name} rejected the OAuth access token even after authorization (HTTP 401). Check the token's audience and scopes.`
        : `${name} requires authorization (HTTP 401). Pass an OAuthClientProvider as authProvider, or the credentials it expects in requestInit.headers.`,
      { cause: error },
    );
  }
  if (code === -32001) {
    return new MCPConnectionError(
      where,
      `${name} did not complete the MCP handshake within ${timeoutMs} ms.`,
      {
        cause: error,
      },
    );
  }
  if (typeof code === "number" && code >= 400) {
    return new MCPConnectionError(where, `${name} answered HTTP ${code}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (errorName && /OAuth|Token|Grant|Client|Scope/i.test(errorName)) {
    return new MCPConnectionError(where, `OAuth with ${name} failed (${errorName}): ${messageOf(error)}`, {
      cause: error,
    });
  }
  return new MCPConnectionError(where, `Could not connect to ${name}: ${messageOf(error)}`, { cause: error });
}
