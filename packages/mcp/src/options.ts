import { InvalidOptionError, type JsonSchemaObject } from "@agent-lattice/core";
import { assertKnownOptions } from "@agent-lattice/core/internal";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { assertNamePrefix } from "./tool-names.js";

/** Deadline of one tool call unless `timeoutMs` says otherwise (the MCP SDK's own default). */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;
/** Deadline of the handshake and first tool listing unless `connectTimeoutMs` says otherwise. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;

/** A tool as an MCP server lists it (`tools/list`). */
export interface MCPToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: JsonSchemaObject;
  outputSchema?: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  execution?: { taskSupport?: string };
  [key: string]: unknown;
}

/** Options of createMCPTools(), and of both connect functions. Unknown keys throw. */
export interface MCPToolsOptions {
  /**
   * Starts every tool name: `namePrefix: "docs"` turns the server's `search` into `docs_search`. Letters,
   * digits, `_` and `-`, at most 32 characters. Also names the server in messages.
   */
  namePrefix?: string;
  /** Deadline of each tool call in milliseconds (default 60000); past it the call is cancelled. */
  timeoutMs?: number;
  /**
   * Follow `notifications/tools/list_changed` (default true): the tools are re-listed and agents see the new
   * list at their next model request. createMCPTools() installs the client's handler for that notification.
   */
  listChanged?: boolean;
  /** Which of the server's tools to expose (also applied to tools the server adds later). Default: all. */
  filter?: (tool: MCPToolInfo) => boolean;
}

/** What a stdio server is started with. The child sees `env` plus a minimal safe environment (PATH, HOME …). */
export interface MCPStdioServerParameters {
  command: string;
  args?: string[];
  /** Added to HOME, LOGNAME, PATH, SHELL, TERM and USER (the only variables inherited from this process). */
  env?: Record<string, string>;
  cwd?: string;
}

/** Options both connect functions share. */
export interface MCPConnectOptions extends MCPToolsOptions {
  /** How this client introduces itself to the server (default `{ name: "agent-lattice", version }`). */
  clientInfo?: { name: string; version: string };
  /** Deadline of the handshake and the first tool listing in milliseconds (default 30000). */
  connectTimeoutMs?: number;
}

export interface MCPStdioServerOptions extends MCPConnectOptions {
  /**
   * The server's stderr: "inherit" (default) copies it to this process's stderr, "ignore" drops it, a function
   * receives it as text. Either way its last lines are kept to explain a crash.
   */
  stderr?: "inherit" | "ignore" | ((text: string) => void);
}

export interface MCPStreamableHTTPServerOptions extends MCPConnectOptions {
  /** Merged into every HTTP request (headers such as `X-Workspace`, …). */
  requestInit?: RequestInit;
  /** An official MCP `OAuthClientProvider`, for servers that require OAuth. */
  authProvider?: OAuthClientProvider;
  /** Replaces the global fetch (a proxy agent, a test double of the network). */
  fetch?: typeof fetch;
}

const TOOLS_KEYS = ["namePrefix", "timeoutMs", "listChanged", "filter"];
const CONNECT_KEYS = [...TOOLS_KEYS, "clientInfo", "connectTimeoutMs"];
export const TOOLS_OPTION_KEYS: ReadonlySet<string> = new Set(TOOLS_KEYS);
export const STDIO_OPTION_KEYS: ReadonlySet<string> = new Set([...CONNECT_KEYS, "stderr"]);
export const HTTP_OPTION_KEYS: ReadonlySet<string> = new Set([
  ...CONNECT_KEYS,
  "requestInit",
  "authProvider",
  "fetch",
]);
const STDIO_PARAMETER_KEYS: ReadonlySet<string> = new Set(["command", "args", "env", "cwd"]);

/** MCPToolsOptions with defaults applied. */
export interface ToolSettings {
  namePrefix: string | undefined;
  timeoutMs: number;
  listChanged: boolean;
  filter: ((tool: MCPToolInfo) => boolean) | undefined;
}

export function resolveToolSettings(
  options: MCPToolsOptions | undefined,
  keys: ReadonlySet<string>,
  label: string,
): ToolSettings {
  assertKnownOptions(options, keys, label);
  const given = options ?? {};
  assertNamePrefix(given.namePrefix, label);
  assertMilliseconds(given.timeoutMs, `${label}.timeoutMs`);
  if (given.listChanged !== undefined && typeof given.listChanged !== "boolean") {
    throw new InvalidOptionError(
      `${label}.listChanged must be a boolean, got ${JSON.stringify(given.listChanged)}.`,
    );
  }
  if (given.filter !== undefined && typeof given.filter !== "function") {
    throw new InvalidOptionError(`${label}.filter must be a function (tool) => boolean.`);
  }
  return {
    namePrefix: given.namePrefix,
    timeoutMs: given.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
    listChanged: given.listChanged ?? true,
    filter: given.filter,
  };
}

export function resolveConnectTimeout(options: MCPConnectOptions | undefined, label: string): number {
  assertMilliseconds(options?.connectTimeoutMs, `${label}.connectTimeoutMs`);
  const info = options?.clientInfo;
  if (info !== undefined && (typeof info?.name !== "string" || typeof info?.version !== "string")) {
    throw new InvalidOptionError(`${label}.clientInfo must be { name: string, version: string }.`);
  }
  return options?.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS;
}

export function validateStdioParameters(server: MCPStdioServerParameters): void {
  const label = "connectMCPStdioServer(server)";
  if (server === null || typeof server !== "object") {
    throw new InvalidOptionError(`${label}: expected { command, args?, env?, cwd? }, got ${typeof server}.`);
  }
  assertKnownOptions(server, STDIO_PARAMETER_KEYS, label);
  if (typeof server.command !== "string" || server.command.trim() === "") {
    throw new InvalidOptionError(`${label}.command must be the program to run, e.g. "node" or "npx".`);
  }
  if (
    server.args !== undefined &&
    !(Array.isArray(server.args) && server.args.every(arg => typeof arg === "string"))
  ) {
    throw new InvalidOptionError(`${label}.args must be an array of strings.`);
  }
  if (
    server.env !== undefined &&
    (server.env === null ||
      typeof server.env !== "object" ||
      !Object.values(server.env).every(value => typeof value === "string"))
  ) {
    throw new InvalidOptionError(`${label}.env must be an object of string values.`);
  }
  if (server.cwd !== undefined && typeof server.cwd !== "string") {
    throw new InvalidOptionError(`${label}.cwd must be a directory path (a string).`);
  }
}

export function validateStderr(value: unknown, label: string): void {
  if (value === undefined || value === "inherit" || value === "ignore" || typeof value === "function") return;
  throw new InvalidOptionError(`${label}.stderr must be "inherit", "ignore" or a function (text) => void.`);
}

function assertMilliseconds(value: unknown, label: string): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > 2_147_483_647) {
    throw new InvalidOptionError(
      `${label} must be a positive number of milliseconds (at most 2147483647), got ${JSON.stringify(value)}.`,
    );
  }
}
