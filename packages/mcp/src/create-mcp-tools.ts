import type { MCPClient } from "./mcp-client.js";
import type { MCPToolDefinition } from "./mcp-tools.js";
import type { MCPToolsOptions } from "./options.js";

/**
 * The tools of an MCP client the host manages (connected, and closed, by the host). Lists the server's tools and
 * returns them as agent tools: `tools: await createMCPTools(client, { namePrefix: "docs" })`. With the SDK's
 * `Client`, the tools follow `notifications/tools/list_changed` (pass `listChanged: false` to keep your own
 * handler for it and call `tools[i].source.refresh()` yourself).
 */
export async function createMCPTools(
  client: MCPClient,
  options: MCPToolsOptions = {},
): Promise<MCPToolDefinition[]> {
  // The tool catalog (result conversion, list-change handling) loads on the first call, not on import.
  return (await import("./mcp-tools.js")).listMCPTools(client, options);
}
