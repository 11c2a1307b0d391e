/**
 * MCP tools: an agent explores this directory through the official filesystem MCP server
 * (@modelcontextprotocol/server-filesystem), started over stdio with connectMCPStdioServer().
 *
 *   node examples/dist/mcp-filesystem.js                      offline, against the embedded mock server
 *   DEEPSEEK_API_KEY=… node examples/dist/mcp-filesystem.js   against a real model
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { connectMCPStdioServer } from "@agent-lattice/mcp";
import { createBareAgent } from "agent-lattice";
import { startMockAnthropicServer, textTurn, toolTurn } from "agent-lattice/testing";
import { type Provider, resolveProvider } from "./provider.js";

const PROMPT = "Which files are in the examples directory, and what does its README say the examples are?";

/** The filesystem server's entry point, as installed next to this example. */
function filesystemServer(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@modelcontextprotocol/server-filesystem/package.json");
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return join(dirname(manifest), Object.values(bin)[0]!);
}

export async function runMcpFilesystem(
  write: (text: string) => void = text => process.stdout.write(text),
  root = fileURLToPath(new URL("..", import.meta.url)),
): Promise<number> {
  const provider = await providerFor(root);
  write(`MCP filesystem example — provider: ${provider.label}\n\n> ${PROMPT}\n\n`);
  // The connection is the host's: it can serve several agents, and the host closes it.
  const mcp = await connectMCPStdioServer(
    { command: process.execPath, args: [filesystemServer(), root] },
    { namePrefix: "fs", stderr: "ignore" },
  );
  write(
    `[mcp] ${mcp.server}: ${mcp.tools.length} tools (${mcp.tools.map(tool => tool.name).join(", ")})\n\n`,
  );
  const agent = createBareAgent({
    apiKey: provider.apiKey,
    baseURL: provider.baseURL,
    model: provider.model,
    systemPrompt: `You can read files under ${root} with the fs_ tools. Answer briefly.`,
    tools: mcp.tools,
    maxTurns: 8,
  });
  try {
    for await (const message of agent.query(PROMPT)) {
      if (message.type === "assistant") {
        for (const block of message.message.content) {
          if (block.type === "text" && block.text) write(`${block.text}\n`);
          if (block.type === "tool_use") write(`[tool call] ${block.name}(${JSON.stringify(block.input)})\n`);
        }
      } else if (message.type === "user") {
        for (const block of message.message.content) {
          const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
          write(`[tool result${block.is_error ? " (error)" : ""}] ${text.slice(0, 200)}\n`);
        }
      } else if (message.type === "result") {
        write(`\n[result: ${message.subtype} · ${message.num_turns} model turns]\n`);
        if (message.is_error) write(`[error] ${message.result}\n`); // why it failed
        return message.subtype === "success" ? 0 : 1;
      }
    }
    return 1;
  } finally {
    await mcp.close();
    await provider.close();
  }
}

/** A real provider when a key is set; otherwise a mock model that lists the directory, then reads the README. */
async function providerFor(root: string): Promise<Provider> {
  const real = await resolveProvider();
  if (!real.label.startsWith("offline")) return real;
  await real.close();
  const server = await startMockAnthropicServer({
    respond: request => {
      const results = request.body.messages.filter(
        (message: { role: string; content: unknown }) =>
          Array.isArray(message.content) &&
          message.content.some((block: { type: string }) => block.type === "tool_result"),
      ).length;
      if (results === 0) return toolTurn({ name: "fs_list_directory", input: { path: root } });
      if (results === 1)
        return toolTurn({ name: "fs_read_text_file", input: { path: join(root, "README.md"), head: 5 } });
      return textTurn(
        "The directory holds the runnable examples (src/, test/); its README says each is a spec example made real.",
      );
    },
  });
  return {
    label: `offline mock server at ${server.url}`,
    apiKey: "offline-demo-key",
    baseURL: server.url,
    model: "mock-claude",
    close: () => server.close(),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  process.exitCode = await runMcpFilesystem();
