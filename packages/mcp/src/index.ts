// @agent-lattice/mcp public API. Importing it loads none of the MCP SDK: the connect functions load it on first use.
export type { MCPConnection } from "./connection.js";
export { createMCPTools } from "./create-mcp-tools.js";
export { MCPAuthorizationRequiredError, MCPConnectionError } from "./errors.js";
export type { MCPCallToolResult, MCPClient, MCPRequestOptions } from "./mcp-client.js";
export type { MCPToolDefinition, MCPToolMetadata, MCPToolSource } from "./mcp-tools.js";
export {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  type MCPConnectOptions,
  type MCPStdioServerOptions,
  type MCPStdioServerParameters,
  type MCPStreamableHTTPServerOptions,
  type MCPToolInfo,
  type MCPToolsOptions,
} from "./options.js";
export { connectMCPStdioServer, type MCPStdioConnection } from "./stdio.js";
export { connectMCPStreamableHTTPServer, type MCPStreamableHTTPConnection } from "./streamable-http.js";
export { MCP_TOOL_NAME_SEPARATOR } from "./tool-names.js";
