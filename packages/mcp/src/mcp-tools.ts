import type {
  JsonSchemaBacked,
  JsonSchemaObject,
  ToolDefinition,
  ToolHandlerExtra,
  ToolResult,
  ToolSource,
} from "@agent-lattice/core";
import { describeCallFailure, messageOf } from "./call-failure.js";
import { ConnectionLink } from "./connection-link.js";
import type { MCPClient } from "./mcp-client.js";
import {
  type MCPToolInfo,
  type MCPToolsOptions,
  resolveToolSettings,
  TOOLS_OPTION_KEYS,
  type ToolSettings,
} from "./options.js";
import { toToolResult } from "./result-content.js";
import { modelToolNames } from "./tool-names.js";

/** A server's tool as an agent tool. `source` lets agents follow the server's list as it changes. */
export interface MCPToolDefinition extends ToolDefinition<Record<string, unknown>> {
  readonly kind: "mcp_tool";
  readonly source: MCPToolSource;
  readonly metadata: { mcp: MCPToolMetadata };
}

/** What the agent tool was made from; for the host (permission callbacks, logs), never shown to the model. */
export interface MCPToolMetadata {
  /** The server, as named in messages. */
  server: string;
  /** The tool's name on the server (the model sees the prefixed, sanitized name). */
  tool: string;
  title?: string;
  annotations?: MCPToolInfo["annotations"];
}

/** The live tool list of one MCP server: a core ToolSource plus a manual refresh. */
export interface MCPToolSource extends ToolSource {
  /** The server, as named in messages. */
  readonly server: string;
  /** Re-lists the server's tools now (what a `notifications/tools/list_changed` does). */
  refresh(): Promise<void>;
}

/** Where the tools of one server come from and how their calls are made. */
interface CatalogContext {
  client: MCPClient;
  settings: ToolSettings;
  link: ConnectionLink;
  server: string;
  /** Deadline of a listing request. */
  listTimeoutMs: number;
}

/** Pages of `tools/list` followed before giving up on a server that never stops paginating. */
const MAX_LIST_PAGES = 100;

/**
 * The agent tools of one MCP server. Lists the server's tools, turns each into an `MCPToolDefinition`, and keeps
 * the list current: `refresh()` re-lists (coalescing overlapping requests) and bumps `version()` when the list
 * really changed, which agents notice before their next model request.
 */
export class MCPToolCatalog implements MCPToolSource {
  readonly id: string;
  readonly server: string;
  #version = 0;
  #tools: MCPToolDefinition[] = [];
  #signature = "";
  #inFlight: Promise<void> | undefined;
  #again = false;

  constructor(private readonly context: CatalogContext) {
    this.server = context.server;
    this.id = `MCP server "${context.server}"`;
  }

  version(): number {
    return this.#version;
  }

  tools(): MCPToolDefinition[] {
    return this.#tools;
  }

  settled(): Promise<void> {
    return this.#inFlight ? this.#inFlight.catch(() => {}) : Promise.resolve();
  }

  refresh(): Promise<void> {
    if (this.#inFlight) {
      this.#again = true;
      return this.#inFlight;
    }
    const run = async () => {
      try {
        do {
          this.#again = false;
          await this.load();
        } while (this.#again);
      } finally {
        this.#inFlight = undefined;
      }
    };
    this.#inFlight = run();
    return this.#inFlight;
  }

  /** Refresh on the server's notification; a failure keeps the previous list and is reported as a warning. */
  onListChanged(): void {
    this.refresh().catch(error => {
      if (this.context.link.closedBecause() !== undefined) return;
      process.emitWarning(
        `The tool list of MCP server "${this.server}" changed, but listing it again failed: ${messageOf(error)}. ` +
          "Agents keep the previous list.",
        { code: "AGENT_LATTICE_MCP_LIST_CHANGED" },
      );
    });
  }

  /** Lists every page of the server's tools and replaces the definitions if anything changed. */
  async load(): Promise<void> {
    const { client, settings } = this.context;
    const infos: MCPToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.context.listTimeoutMs,
      });
      if (!listed || !Array.isArray(listed.tools)) {
        throw new Error(`MCP server "${this.server}" answered tools/list without a tools array.`);
      }
      infos.push(...listed.tools);
      cursor = typeof listed.nextCursor === "string" && listed.nextCursor ? listed.nextCursor : undefined;
      if (!cursor) break;
    }
    // Tools that only run as MCP tasks cannot be called with a plain tools/call.
    const usable = infos.filter(info => info?.execution?.taskSupport !== "required");
    const chosen = settings.filter ? usable.filter(info => settings.filter!(info)) : usable;
    const signature = JSON.stringify(chosen);
    if (signature === this.#signature) return;
    const names = modelToolNames(
      chosen.map(info => info.name),
      settings.namePrefix,
    );
    this.#tools = chosen.map(info => this.#define(info, names.get(info.name)!));
    this.#signature = signature;
    this.#version += 1;
  }

  #define(info: MCPToolInfo, name: string): MCPToolDefinition {
    const inputSchema = objectSchemaOf(info.inputSchema);
    const metadata: MCPToolMetadata = { server: this.server, tool: info.name };
    if (info.title !== undefined) metadata.title = info.title;
    if (info.annotations !== undefined) metadata.annotations = info.annotations;
    const definition: MCPToolDefinition = {
      kind: "mcp_tool",
      name,
      description:
        info.description ??
        info.title ??
        info.annotations?.title ??
        `MCP tool "${info.name}" of server "${this.server}".`,
      inputSchema,
      schema: objectInput(inputSchema),
      handler: (input, extra) => callMCPTool(this.context, info.name, input, extra),
      // The server declares the tool read-only: calls of one batch may overlap.
      ...(info.annotations?.readOnlyHint === true ? { isConcurrencySafe: () => true } : {}),
      metadata: { mcp: metadata },
      source: this,
    };
    return Object.freeze(definition);
  }
}

/** The implementation of createMCPTools() (see create-mcp-tools.ts), loaded on its first call. */
export async function listMCPTools(
  client: MCPClient,
  options: MCPToolsOptions = {},
): Promise<MCPToolDefinition[]> {
  assertClient(client);
  const settings = resolveToolSettings(options, TOOLS_OPTION_KEYS, "createMCPTools options");
  const catalog = await openCatalog(client, settings, new ConnectionLink(), settings.timeoutMs);
  return [...catalog.tools()];
}

/** Lists the tools and, when asked, subscribes to the server's list changes. */
export async function openCatalog(
  client: MCPClient,
  settings: ToolSettings,
  link: ConnectionLink,
  listTimeoutMs: number,
  fallbackName = "mcp",
): Promise<MCPToolCatalog> {
  const server = settings.namePrefix ?? serverNameOf(client) ?? fallbackName;
  const catalog = new MCPToolCatalog({ client, settings, link, server, listTimeoutMs });
  if (settings.listChanged && typeof client.setNotificationHandler === "function") {
    // Loaded here, not at import: importing this package must not load the MCP SDK.
    const { ToolListChangedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => catalog.onListChanged());
  }
  await catalog.refresh();
  return catalog;
}

function serverNameOf(client: MCPClient): string | undefined {
  try {
    const name = client.getServerVersion?.()?.name;
    return typeof name === "string" && name ? name : undefined;
  } catch {
    return undefined;
  }
}

function assertClient(client: MCPClient): void {
  if (!client || typeof client.listTools !== "function" || typeof client.callTool !== "function") {
    throw new TypeError(
      "createMCPTools(client): expected a connected MCP client with listTools() and callTool() (the official " +
        "SDK's Client, or an adapter with the same two methods).",
    );
  }
}

/** MCP requires `type: "object"`; a missing or different schema falls back to "any object". */
function objectSchemaOf(schema: unknown): JsonSchemaObject {
  if (schema && typeof schema === "object" && (schema as { type?: unknown }).type === "object") {
    return schema as JsonSchemaObject;
  }
  return { type: "object" };
}

/**
 * Input validation is the server's: it checks arguments against its own schema and answers with an error the
 * model reads. Here the input only has to be a JSON object, which is what `tools/call` carries.
 */
function objectInput(inputSchema: JsonSchemaObject): JsonSchemaBacked<Record<string, unknown>> {
  return {
    jsonSchema: inputSchema,
    parse(input: unknown): Record<string, unknown> {
      if (input === null || typeof input !== "object" || Array.isArray(input)) {
        throw new Error(
          `expected a JSON object of arguments, got ${Array.isArray(input) ? "an array" : typeof input}`,
        );
      }
      return input as Record<string, unknown>;
    },
  };
}

/** One `tools/call`, bounded by the call's timeout and cancelled with the query; failures become is_error results. */
async function callMCPTool(
  context: CatalogContext,
  tool: string,
  input: Record<string, unknown>,
  extra: Partial<ToolHandlerExtra> | undefined,
): Promise<ToolResult> {
  const { client, link, server } = context;
  const { timeoutMs } = context.settings;
  const closed = link.closedBecause();
  if (closed !== undefined) {
    return {
      content: `MCP server "${server}" is not connected (${closed}), so tool "${tool}" did not run. The host must reconnect it.`,
      isError: true,
    };
  }
  const parent = extra?.signal;
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`The MCP tool call timed out after ${timeoutMs} ms.`));
  }, timeoutMs);
  try {
    const call = client.callTool({ name: tool, arguments: input }, undefined, {
      signal: controller.signal,
      timeout: timeoutMs,
    });
    const result = await raceAbort(call, controller.signal);
    return toToolResult(result, { server, tool });
  } catch (error) {
    return {
      content: describeCallFailure({
        error,
        server,
        tool,
        timeoutMs,
        timedOut,
        cancelled: !timedOut && parent?.aborted === true,
        closedBecause: link.closedBecause(),
      }),
      isError: true,
    };
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onAbort);
  }
}

/** A client that ignores its signal must not hold the agent: losing the race abandons the call. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      value => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      error => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
