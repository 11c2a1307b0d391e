// createMCPTools(client) with the generic MCPClient adapter (any object with listTools() and callTool()), and
// with the official SDK Client a host manages (M3): naming, schemas, result mapping, timeouts, list changes.
import { createBareAgent, InvalidOptionError, tool } from "@agent-lattice/core";
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { createMCPTools, type MCPClient, type MCPToolInfo } from "../src/index.js";
import { eventually, fixture } from "./helpers.js";

const extra = () => ({ signal: new AbortController().signal }) as never;

/** A generic adapter over a fixed list: the shape of the "generic MCPClient adapter". */
function adapter(
  tools: MCPToolInfo[],
  call: MCPClient["callTool"] = async () => ({ content: [] }),
): MCPClient & {
  calls: unknown[];
} {
  const calls: unknown[] = [];
  return {
    calls,
    async listTools() {
      return { tools };
    },
    async callTool(params, schema, options) {
      calls.push(params);
      return call(params, schema, options);
    },
  };
}

const search: MCPToolInfo = {
  name: "search",
  description: "Search documents",
  inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
};

describe("createMCPTools(client): tool definitions", () => {
  it("maps each MCP tool to an agent tool with the server's schema unchanged", async () => {
    const tools = await createMCPTools(adapter([search]));
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ kind: "mcp_tool", name: "search", description: "Search documents" });
    expect(tools[0]!.inputSchema).toBe(search.inputSchema);
    expect(tools[0]!.metadata).toEqual({ mcp: { server: "mcp", tool: "search" } });
  });

  it("namePrefix: 'docs' turns search into docs_search; calls go to the server's own name", async () => {
    const client = adapter([search], async () => ({ content: [{ type: "text", text: "found" }] }));
    const [docsSearch] = await createMCPTools(client, { namePrefix: "docs" });
    expect(docsSearch!.name).toBe("docs_search");
    expect(await docsSearch!.handler({ query: "sdk" }, extra())).toEqual({ content: "found" });
    expect(client.calls).toEqual([{ name: "search", arguments: { query: "sdk" } }]);
  });

  it("makes names valid for the model API: dots and spaces replaced, long names cut with a stable hash", async () => {
    const long = `fetch_${"x".repeat(80)}`;
    const tools = await createMCPTools(
      adapter([
        { name: "admin.users.list", inputSchema: { type: "object" } },
        { name: "get weather", inputSchema: { type: "object" } },
        { name: long, inputSchema: { type: "object" } },
      ]),
      { namePrefix: "svc" },
    );
    const names = tools.map(definition => definition.name);
    expect(names[0]).toBe("svc_admin_users_list");
    expect(names[1]).toBe("svc_get_weather");
    expect(names[2]).toMatch(/^svc_fetch_x+_[0-9a-f]{8}$/);
    expect(names[2]!.length).toBe(64);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // The same list gives the same names, whatever its order.
    const again = await createMCPTools(
      adapter([
        { name: long, inputSchema: { type: "object" } },
        { name: "admin.users.list", inputSchema: { type: "object" } },
      ]),
      { namePrefix: "svc" },
    );
    expect(again.map(definition => definition.name)).toEqual([names[2], names[0]]);
  });

  it("keeps names unique when two server names sanitize alike; the unaltered one keeps its spelling", async () => {
    const tools = await createMCPTools(
      adapter([
        { name: "a.b", inputSchema: { type: "object" } },
        { name: "a_b", inputSchema: { type: "object" } },
        { name: "a b", inputSchema: { type: "object" } },
      ]),
    );
    const names = tools.map(definition => definition.name);
    expect(names[1]).toBe("a_b");
    expect(names[0]).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(names[2]).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(new Set(names).size).toBe(3);
  });

  it("a collision with another tool of the agent is an InvalidOptionError at assembly", async () => {
    const first = await createMCPTools(adapter([search]), { namePrefix: "docs" });
    const second = await createMCPTools(adapter([search]), { namePrefix: "docs" });
    const make = () =>
      createBareAgent({
        model: "m",
        modelClient: createScriptedModelClient({ script: [] }),
        tools: [...first, ...second],
      });
    expect(make).toThrow(InvalidOptionError);
    expect(make).toThrow('two tools are named "docs_search"');
    const local = tool("docs_search", "mine", z.object({}), async () => ({ content: "" }));
    expect(() =>
      createBareAgent({
        model: "m",
        modelClient: createScriptedModelClient({ script: [] }),
        tools: [local, ...first],
      }),
    ).toThrow(InvalidOptionError);
  });

  it("follows nextCursor pages, skips tools that only run as MCP tasks, applies the filter", async () => {
    const pages: Record<string, { tools: MCPToolInfo[]; nextCursor?: string }> = {
      start: { tools: [search], nextCursor: "p2" },
      p2: {
        tools: [
          { name: "delete_all", inputSchema: { type: "object" }, annotations: { destructiveHint: true } },
          { name: "research", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
        ],
      },
    };
    const client: MCPClient = {
      listTools: async params => pages[params?.cursor ?? "start"]!,
      callTool: async () => ({ content: [] }),
    };
    expect((await createMCPTools(client)).map(definition => definition.name)).toEqual([
      "search",
      "delete_all",
    ]);
    const safe = await createMCPTools(client, { filter: info => info.annotations?.destructiveHint !== true });
    expect(safe.map(definition => definition.name)).toEqual(["search"]);
  });

  it("read-only tools (readOnlyHint) may run concurrently; others may not", async () => {
    const tools = await createMCPTools(
      adapter([
        { name: "read", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
        { name: "write", inputSchema: { type: "object" } },
      ]),
    );
    expect(tools[0]!.isConcurrencySafe?.({})).toBe(true);
    expect(tools[1]!.isConcurrencySafe).toBeUndefined();
  });

  it("input validation is the server's; the agent only requires a JSON object", async () => {
    const [definition] = await createMCPTools(adapter([search]));
    expect(definition!.schema).toMatchObject({ jsonSchema: search.inputSchema });
    expect((definition!.schema as { parse(input: unknown): unknown }).parse({ anything: 1 })).toEqual({
      anything: 1,
    });
    expect(() => (definition!.schema as { parse(input: unknown): unknown }).parse([1])).toThrow(
      /JSON object/,
    );
  });

  it("rejects a client without listTools/callTool and unknown or invalid options", async () => {
    await expect(createMCPTools({} as never)).rejects.toThrow(/listTools\(\) and callTool\(\)/);
    await expect(createMCPTools(adapter([]), { namePrefix: "a.b" })).rejects.toThrow(InvalidOptionError);
    await expect(createMCPTools(adapter([]), { prefix: "x" } as never)).rejects.toThrow(
      /unknown option "prefix"/,
    );
  });
});

describe("createMCPTools(client): results the model reads", () => {
  async function resultOf(result: unknown) {
    const [definition] = await createMCPTools(adapter([search], async () => result as never));
    return definition!.handler({ query: "q" }, extra());
  }

  it("text blocks become one string; isError becomes an is_error result", async () => {
    expect(
      await resultOf({
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      }),
    ).toEqual({
      content: "one\ntwo",
    });
    expect(await resultOf({ isError: true, content: [{ type: "text", text: "boom" }] })).toEqual({
      content: "boom",
      isError: true,
    });
  });

  it("images of the model's types become image blocks; other images, audio and binary blobs become notes", async () => {
    const result = await resultOf({
      content: [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "image", data: "PHN2Zz4=", mimeType: "image/svg+xml" },
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        {
          type: "resource",
          resource: { uri: "file:///a.bin", mimeType: "application/octet-stream", blob: "AAEC" },
        },
      ],
    });
    expect(result.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      {
        type: "text",
        text: "[an image of type image/svg+xml (5 bytes) was left out: the model accepts JPEG, PNG, GIF and WebP]",
      },
      { type: "text", text: "[audio (audio/wav, 4 bytes) was left out: tool results cannot carry audio]" },
      {
        type: "text",
        text: "[the binary resource file:///a.bin (application/octet-stream, 3 bytes) was left out]",
      },
    ]);
  });

  it("embedded resources: text with its URI, PDFs as documents, images as images, text blobs decoded", async () => {
    const result = await resultOf({
      content: [
        {
          type: "resource",
          resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" },
        },
        {
          type: "resource",
          resource: { uri: "file:///r.pdf", mimeType: "application/pdf", blob: "JVBERi0=" },
        },
        { type: "resource", resource: { uri: "file:///p.png", mimeType: "image/png", blob: "iVBORw0KGgo=" } },
        { type: "resource", resource: { uri: "file:///t.txt", mimeType: "text/plain", blob: "aGVsbG8=" } },
      ],
    });
    expect(result.content).toEqual([
      { type: "text", text: "Resource file:///notes.md (text/markdown):\n# Notes" },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" },
        title: "file:///r.pdf",
      },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "text", text: "Resource file:///t.txt (text/plain):\nhello" },
    ]);
  });

  it("resource links, structured content and empty results", async () => {
    expect(
      await resultOf({
        content: [
          {
            type: "resource_link",
            uri: "file:///spec.md",
            name: "spec",
            mimeType: "text/markdown",
            description: "The spec",
          },
        ],
      }),
    ).toEqual({ content: "Resource link: spec <file:///spec.md> (text/markdown): The spec" });
    expect(await resultOf({ content: [], structuredContent: { temperature: 21 } })).toEqual({
      content: '{"temperature":21}',
    });
    expect(await resultOf({ content: [] })).toEqual({ content: "(no content)" });
  });

  it("a result that is not an MCP CallToolResult is an is_error result naming the server and tool", async () => {
    for (const bad of [
      null,
      { content: "text" },
      { content: [{ type: "video" }] },
      { content: [{ type: "text" }] },
    ]) {
      const result = await resultOf(bad);
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^MCP server "mcp" returned a malformed result for tool "search": /);
    }
  });

  it("a client that ignores the signal still cannot hold the agent past timeoutMs", async () => {
    const [slow] = await createMCPTools(
      adapter([search], () => new Promise(() => {})),
      { timeoutMs: 100 },
    );
    const result = await slow!.handler({ query: "q" }, extra());
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toContain('MCP tool "search" on server "mcp" did not answer within 100 ms');
  });

  it("a tool call that throws becomes an is_error result with the reason", async () => {
    const [failing] = await createMCPTools(
      adapter([search], async () => {
        throw Object.assign(new Error("Tool search not found"), { code: -32602 });
      }),
    );
    expect(await failing!.handler({ query: "q" }, extra())).toEqual({
      isError: true,
      content: 'MCP server "mcp" rejected the call to tool "search": Tool search not found',
    });
  });
});

describe("createMCPTools(client) with the official SDK Client the host manages (M3)", () => {
  it("follows the server's list changes, names the server after itself, and never closes the host's client", async () => {
    const client = new Client({ name: "host", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fixture("faulty-server.mjs")],
        stderr: "ignore",
      }),
    );
    const tools = await createMCPTools(client);
    expect(tools[0]!.source.server).toBe("faulty");
    const model = createScriptedModelClient({
      script: [
        toolTurn({ name: "add_tool", input: {} }),
        toolTurn({ name: "late", input: { n: 7 } }),
        textTurn("ok"),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: model, tools });
    await agent.prompt("go");
    expect(model.requests[1]!.tools.map(spec => spec.name)).toContain("late");
    expect(JSON.stringify(model.requests[2]!.messages.at(-1))).toContain("late 7");
    // The host closes its own client; calls then fail at once, naming the server.
    await client.close();
    const echo = tools.find(definition => definition.name === "echo")!;
    const result = await echo.handler({ text: "x" }, extra());
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      'MCP server "faulty" is not connected, so tool "echo" did not run. The host must reconnect it.',
    );
  });

  it("refresh() re-lists on demand for hosts that keep their own list_changed handler (listChanged: false)", async () => {
    const client = new Client({ name: "host", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fixture("faulty-server.mjs")],
        stderr: "ignore",
      }),
    );
    try {
      const tools = await createMCPTools(client, { listChanged: false, namePrefix: "f" });
      const source = tools[0]!.source;
      const add = tools.find(definition => definition.name === "f_add_tool")!;
      await add.handler({}, extra());
      await new Promise(resolve => setTimeout(resolve, 100));
      expect(source.tools().map(definition => definition.name)).not.toContain("f_late");
      await source.refresh();
      expect(source.tools().map(definition => definition.name)).toContain("f_late");
      await eventually(() => source.version() === 2);
    } finally {
      await client.close();
    }
  });
});
