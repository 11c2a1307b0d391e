import type { MCPConnection } from "./connection.js";
import type { MCPStdioServerOptions, MCPStdioServerParameters } from "./options.js";

/** A connection to a server this process started; `pid` is the child's process id. */
export interface MCPStdioConnection extends MCPConnection {
  /** The server process, while it runs (undefined once it has exited). */
  readonly pid: number | undefined;
}

/**
 * Starts an MCP server as a child process and speaks MCP with it over stdin/stdout:
 * `const mcp = await connectMCPStdioServer({ command: "node", args: ["./mcp-server.js"] }, { namePrefix: "docs" })`.
 * The child gets `env` plus PATH, HOME, LOGNAME, SHELL, TERM and USER, never the rest of this process's
 * environment. Close the connection when done: the host owns it.
 */
export async function connectMCPStdioServer(
  server: MCPStdioServerParameters,
  options: MCPStdioServerOptions = {},
): Promise<MCPStdioConnection> {
  // The connection code (and, through it, the MCP SDK) loads on the first connect, not when the package is imported.
  return (await import("./stdio-connect.js")).connectStdio(server, options);
}
