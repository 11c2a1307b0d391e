import type { MCPConnection } from "./connection.js";
import type { MCPStreamableHTTPServerOptions } from "./options.js";

/** A connection to a remote server over Streamable HTTP. */
export interface MCPStreamableHTTPConnection extends MCPConnection {
  /** The MCP session id the server assigned (undefined for servers without sessions, and after close). */
  readonly sessionId: string | undefined;
}

/**
 * Connects to a remote MCP server over Streamable HTTP:
 * `await connectMCPStreamableHTTPServer("https://mcp.example.com/mcp", { namePrefix: "remote", requestInit })`.
 * With `authProvider` (an official MCP `OAuthClientProvider`) the SDK runs OAuth: tokens are sent, refreshed when
 * the server rejects them, and a missing authorization throws MCPAuthorizationRequiredError after the provider's
 * `redirectToAuthorization()`. Close the connection when done: the host owns it.
 */
export async function connectMCPStreamableHTTPServer(
  url: string | URL,
  options: MCPStreamableHTTPServerOptions = {},
): Promise<MCPStreamableHTTPConnection> {
  // The connection code (and, through it, the MCP SDK) loads on the first connect, not when the package is imported.
  return (await import("./streamable-http-connect.js")).connectStreamableHTTP(url, options);
}
