import type { MCPToolInfo } from "./options.js";

/** Per-request options the official SDK's Client takes (signal, timeout in ms). */
export interface MCPRequestOptions {
  signal?: AbortSignal;
  timeout?: number;
}

/** A `tools/call` result: MCP content blocks, the error flag, optional structured content. */
export interface MCPCallToolResult {
  content?: unknown[];
  isError?: boolean;
  structuredContent?: unknown;
  [key: string]: unknown;
}

/**
 * The part of an MCP client that createMCPTools() uses. The official SDK's `Client` satisfies it; so does any
 * adapter with `listTools()` and `callTool()` (the "generic MCPClient adapter").
 */
export interface MCPClient {
  listTools(
    params?: { cursor?: string },
    options?: MCPRequestOptions,
  ): Promise<{ tools: MCPToolInfo[]; nextCursor?: string; [key: string]: unknown }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: any,
    options?: MCPRequestOptions,
  ): Promise<MCPCallToolResult>;
  /** The SDK Client's: lets the tools follow `notifications/tools/list_changed`. */
  setNotificationHandler?(schema: any, handler: (notification: any) => void | Promise<void>): void;
  /** The SDK Client's: the server's name, for messages. */
  getServerVersion?(): { name: string; version?: string } | undefined;
}
