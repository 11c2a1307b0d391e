import { messageOf } from "./call-failure.js";
import { defaultClientInfo } from "./client-info.js";
import { openConnection } from "./connection.js";
import { MCPConnectionError } from "./errors.js";
import {
  type MCPStdioServerOptions,
  type MCPStdioServerParameters,
  resolveConnectTimeout,
  resolveToolSettings,
  STDIO_OPTION_KEYS,
  validateStderr,
  validateStdioParameters,
} from "./options.js";
import type { MCPStdioConnection } from "./stdio.js";

/** Characters of the server's stderr kept to explain a crash. */
const STDERR_TAIL = 2000;
/** How long close() waits for a killed server process to be gone. */
const EXIT_WAIT_MS = 3000;

/** The implementation of connectMCPStdioServer() (see stdio.ts), loaded on its first call. */
export async function connectStdio(
  server: MCPStdioServerParameters,
  options: MCPStdioServerOptions = {},
): Promise<MCPStdioConnection> {
  const label = "connectMCPStdioServer options";
  validateStdioParameters(server);
  const settings = resolveToolSettings(options, STDIO_OPTION_KEYS, label);
  const connectTimeoutMs = resolveConnectTimeout(options, label);
  validateStderr(options.stderr, label);
  // Loaded here, not at import: importing this package must not load the MCP SDK.
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
  ]);
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args ?? [],
    ...(server.env ? { env: server.env } : {}),
    ...(server.cwd !== undefined ? { cwd: server.cwd } : {}),
    stderr: "pipe",
  });
  let tail = "";
  const forward = options.stderr ?? "inherit";
  // Always read the pipe: a server blocked on a full stderr pipe would hang.
  transport.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    tail = (tail + text).slice(-STDERR_TAIL);
    if (forward === "inherit") process.stderr.write(text);
    else if (typeof forward === "function") forward(text);
  });
  const commandLine = [server.command, ...(server.args ?? [])].join(" ");
  // The child's pid, kept past its exit (the transport forgets it): for crash messages and close().
  let pid: number | undefined;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    pid = transport.pid ?? undefined;
  };
  const connection = await openConnection({
    client: new Client(options.clientInfo ?? defaultClientInfo(), { capabilities: {} }),
    transport,
    label: commandLine,
    settings,
    connectTimeoutMs,
    describeLoss: () => {
      const last = tail.trim().split("\n").slice(-5).join("\n");
      return `; its process (${commandLine}${pid ? `, pid ${pid}` : ""}) exited${last ? `. Its last stderr output:\n${last}` : ""}`;
    },
    connectError: error => stdioConnectError(error, server, commandLine, connectTimeoutMs),
    afterClose: () => (pid ? waitForExit(pid) : Promise.resolve()),
  });
  return Object.defineProperty(connection, "pid", {
    enumerable: true,
    get: () => transport.pid ?? undefined,
  }) as MCPStdioConnection;
}

function stdioConnectError(
  error: unknown,
  server: MCPStdioServerParameters,
  commandLine: string,
  timeoutMs: number,
): MCPConnectionError {
  const code = (error as { code?: unknown } | null)?.code;
  const name = `MCP server "${commandLine}"`;
  if (code === "ENOENT") {
    return new MCPConnectionError(
      commandLine,
      `Could not start ${name}: the command "${server.command}" was not found. Check the command and PATH ` +
        "(the server sees PATH, HOME, LOGNAME, SHELL, TERM, USER and the env you pass).",
      { cause: error },
    );
  }
  if (code === "EACCES") {
    return new MCPConnectionError(
      commandLine,
      `Could not start ${name}: permission denied running "${server.command}".`,
      {
        cause: error,
      },
    );
  }
  if (code === -32001) {
    return new MCPConnectionError(
      commandLine,
      `${name} did not complete the MCP handshake within ${timeoutMs} ms. Check that it speaks MCP over stdio, or raise connectTimeoutMs.`,
      { cause: error },
    );
  }
  return new MCPConnectionError(commandLine, `Could not connect to ${name}: ${messageOf(error)}`, {
    cause: error,
  });
}

/** Resolves once no process has this pid (polling: the child was already signalled by the SDK's close). */
async function waitForExit(pid: number): Promise<void> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (Date.now() < deadline && isAlive(pid)) await new Promise(resolve => setTimeout(resolve, 10));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}
