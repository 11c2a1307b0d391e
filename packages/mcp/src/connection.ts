import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ConnectionLink } from "./connection-link.js";
import type { MCPClient } from "./mcp-client.js";
import { type MCPToolCatalog, type MCPToolDefinition, type MCPToolSource, openCatalog } from "./mcp-tools.js";
import type { ToolSettings } from "./options.js";

/**
 * A connection this package opened to one MCP server. The host owns it: one connection can serve several agents,
 * so no agent closes it. Close it when you are done (`await mcp.close()`, or `await using mcp = …`); until then the
 * server process or HTTP session stays open.
 */
export interface MCPConnection extends AsyncDisposable {
  /** The server's tools as agent tools (`tools: mcp.tools`). Agents follow later changes of the list by themselves. */
  readonly tools: MCPToolDefinition[];
  /** The server, as named in messages: the namePrefix, else the name the server gave itself. */
  readonly server: string;
  /** The official SDK client, for what this package does not wrap (resources, prompts). Do not close it directly. */
  readonly client: Client;
  /** The live tool list the tools belong to. */
  readonly source: MCPToolSource;
  /** Re-lists the server's tools now. */
  refreshTools(): Promise<void>;
  /**
   * Ends the connection: stdio servers get their stdin closed, then SIGTERM, then SIGKILL, and are awaited;
   * Streamable HTTP sessions are terminated (DELETE) and their streams closed. Idempotent. Calls made afterwards
   * fail at once with an is_error result.
   */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** How one kind of transport is opened, explained and shut down. */
export interface ConnectionPlan {
  client: Client;
  transport: Transport;
  /** The command line or URL, for messages before the server has named itself. */
  label: string;
  settings: ToolSettings;
  connectTimeoutMs: number;
  /** What is known about an unexpected close (exit, last stderr lines), appended to the reason. */
  describeLoss(): string;
  /** Turns a failure while connecting into the error the host sees. */
  connectError(error: unknown): Error;
  /** Before the client closes (terminating an HTTP session). Must not throw. */
  beforeClose?(): Promise<void>;
  /** After the client closed (waiting for the child process to be gone). Must not throw. */
  afterClose?(): Promise<void>;
}

/** Connects, lists the tools, and returns the parts every connection has; on failure nothing is left running. */
export async function openConnection(plan: ConnectionPlan): Promise<MCPConnection> {
  const { client } = plan;
  const link = new ConnectionLink();
  let closing = false;
  client.onclose = () =>
    link.markClosed(
      closing ? "the host closed the connection" : `the server went away${plan.describeLoss()}`,
    );
  let shutdown: Promise<void> | undefined;
  const close = () => {
    shutdown ??= (async () => {
      closing = true;
      link.markClosed("the host closed the connection");
      await plan.beforeClose?.();
      await client.close().catch(() => {});
      await plan.afterClose?.();
    })();
    return shutdown;
  };
  let catalog: MCPToolCatalog;
  try {
    await client.connect(plan.transport, { timeout: plan.connectTimeoutMs });
    catalog = await openCatalog(
      client as unknown as MCPClient,
      plan.settings,
      link,
      plan.connectTimeoutMs,
      plan.label,
    );
  } catch (error) {
    const lost = link.closedBecause();
    await close();
    throw plan.connectError(
      lost !== undefined && !(error instanceof TypeError) ? withLoss(error, lost) : error,
    );
  }
  return {
    get tools() {
      return [...catalog.tools()];
    },
    server: catalog.server,
    client,
    source: catalog,
    refreshTools: () => catalog.refresh(),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** JSON-RPC code of the SDK's "Connection closed". */
const CONNECTION_CLOSED = -32000;

/** The server went away during the handshake: say why in place of the SDK's bare "Connection closed". */
function withLoss(error: unknown, lost: string): unknown {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== CONNECTION_CLOSED) return error;
  const wrapped = new Error(`${error.message}: ${lost}`, { cause: error });
  (wrapped as { code?: unknown }).code = (error as { code?: unknown }).code;
  return wrapped;
}
