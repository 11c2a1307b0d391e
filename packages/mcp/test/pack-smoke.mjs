// Install check 3 (U2), run by packaging/test/install-alone.test.ts: this package installed alone beside
// @agent-lattice/core from the packed tarballs (no workspace, no umbrella). A real stdio MCP server — written here
// with the MCP SDK this package brings — offers one tool; an agent calls it through core's loop, driven by a
// hand-written ModelClient (no test kit is installed).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBareAgent } from "@agent-lattice/core";
import { connectMCPStdioServer } from "@agent-lattice/mcp";

const dir = mkdtempSync(join(tmpdir(), "smoke-mcp-"));
const serverFile = join(dir, "server.mjs");
writeFileSync(
  serverFile,
  `import { Server } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/server/index.js"))};
import { StdioServerTransport } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/server/stdio.js"))};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/types.js"))};
const server = new Server({ name: "smoke", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: "shout", description: "Upper-cases text", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }],
}));
server.setRequestHandler(CallToolRequestSchema, async request => ({
  content: [{ type: "text", text: String(request.params.arguments?.text ?? "").toUpperCase() }],
}));
await server.connect(new StdioServerTransport());
`,
);

const mcp = await connectMCPStdioServer(
  { command: process.execPath, args: [serverFile] },
  { namePrefix: "smoke" },
);
try {
  const names = mcp.tools.map(tool => tool.name);
  assert.deepEqual(names, ["smoke_shout"]);
  const replies = [
    [{ type: "tool_use", id: "t1", name: "smoke_shout", input: { text: "hello mcp" } }],
    [{ type: "text", text: "done" }],
  ];
  const modelClient = {
    async create() {
      const content = replies.shift();
      return {
        message: { role: "assistant", content },
        stopReason: content[0].type === "tool_use" ? "tool_use" : "end_turn",
        usage: { input_tokens: 1, output_tokens: 1 },
      };
    },
  };
  const agent = createBareAgent({ model: "smoke", modelClient, tools: mcp.tools });
  const messages = [];
  for await (const message of agent.query("shout", { stream: false })) messages.push(message);
  assert.equal(messages.at(-1).subtype, "success", JSON.stringify(messages.at(-1)));
  const toolResult = messages.find(m => m.type === "user").message.content[0];
  assert.match(JSON.stringify(toolResult.content), /HELLO MCP/);
  console.log("smoke ok: a stdio MCP server's tool ran through core's loop");
} finally {
  await mcp.close();
  rmSync(dir, { recursive: true, force: true });
}
