import { AgentLatticeError } from "@agent-lattice/core";

/**
 * Connecting to an MCP server failed: the command could not start, the server exited or stopped answering
 * during the handshake, or the HTTP endpoint refused the connection. Nothing is left running.
 */
export class MCPConnectionError extends AgentLatticeError {
  /** The server, as named in messages (the namePrefix, or what the server calls itself, or its command/URL). */
  readonly server: string;
  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super("mcp_connection", message, options);
    this.server = server;
  }
}

/**
 * The Streamable HTTP server requires OAuth authorization that the `authProvider` does not hold yet (no token,
 * or a token the server rejected that could not be refreshed). The provider's `redirectToAuthorization()` has
 * been called with the authorization URL; once the user has approved and your redirect handler has the
 * authorization code, call `finishAuth(code)` and connect again.
 */
export class MCPAuthorizationRequiredError extends AgentLatticeError {
  readonly server: string;
  readonly #finish: (authorizationCode: string) => Promise<void>;
  constructor(
    server: string,
    message: string,
    finish: (authorizationCode: string) => Promise<void>,
    options?: { cause?: unknown },
  ) {
    super("mcp_authorization_required", message, options);
    this.server = server;
    this.#finish = finish;
  }

  /** Exchanges the authorization code for tokens (saved through the provider's `saveTokens()`). */
  finishAuth(authorizationCode: string): Promise<void> {
    return this.#finish(authorizationCode);
  }
}
