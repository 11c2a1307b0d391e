// M1 against real servers no one here wrote: @modelcontextprotocol/server-everything and server-filesystem over
// stdio, driven by an agent whose model is the mock Anthropic server (real HTTP/SSE through the built-in client).
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBareAgent, type ImageBlock } from "@agent-lattice/core";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { connectMCPStdioServer, type MCPStdioConnection } from "../src/index.js";
import { EVERYTHING, FILESYSTEM, mockModel, offeredTools, toolResults } from "./helpers.js";

const open: MCPStdioConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map(connection => connection.close()));
});

async function everything(): Promise<MCPStdioConnection> {
  const connection = await connectMCPStdioServer(
    { command: process.execPath, args: [EVERYTHING] },
    { namePrefix: "everything", stderr: "ignore" },
  );
  open.push(connection);
  return connection;
}

describe("server-everything over stdio (M1)", () => {
  it("offers the server's tools with the prefix and their JSON Schemas unchanged", async () => {
    const mcp = await everything();
    // What the server itself lists, read with the SDK directly.
    const reference = new Client({ name: "reference", version: "1" });
    await reference.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING], stderr: "ignore" }),
    );
    const { tools: listed } = await reference.listTools();
    await reference.close();

    const model = await mockModel([textTurn("hello")]);
    await createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools }).prompt("hi");
    const offered = model.requests[0]!.body.tools as Array<{
      name: string;
      description: string;
      input_schema: unknown;
    }>;
    const echo = listed.find(info => info.name === "echo")!;
    expect(offered).toContainEqual({
      name: "everything_echo",
      description: echo.description,
      input_schema: echo.inputSchema,
    });
    for (const info of listed.filter(candidate => candidate.execution?.taskSupport !== "required")) {
      const spec = offered.find(candidate => candidate.name === `everything_${info.name}`);
      expect(spec?.input_schema, info.name).toEqual(info.inputSchema);
    }
    expect(offered.every(spec => /^[a-zA-Z0-9_-]{1,64}$/.test(spec.name))).toBe(true);
    expect(mcp.server).toBe("everything");
  });

  it("the agent calls text, image, embedded-resource and resource-link tools, and the results reach the model", async () => {
    const mcp = await everything();
    const model = await mockModel([
      toolTurn([
        { name: "everything_echo", input: { message: "hello MCP" } },
        { name: "everything_get-sum", input: { a: 2, b: 40 } },
        { name: "everything_get-tiny-image", input: {} },
        { name: "everything_get-resource-reference", input: { resourceType: "Text", resourceId: 3 } },
        { name: "everything_get-resource-links", input: { count: 1 } },
      ]),
      textTurn("all done"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
    const result = await agent.prompt("use them all");
    expect(result.result).toBe("all done");
    const [echo, sum, image, resource, links] = toolResults(model.requests[1]!.body);
    expect(echo).toMatchObject({ type: "tool_result", content: "Echo: hello MCP" });
    expect(echo).not.toHaveProperty("is_error");
    expect(sum!.content).toContain("42");
    const imageBlocks = (image!.content as ImageBlock[]).filter(block => block.type === "image");
    expect(imageBlocks).toHaveLength(1);
    expect(imageBlocks[0]!.source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect((imageBlocks[0]!.source as { data: string }).data).toMatch(/^iVBORw0KGgo/);
    expect(resource!.content).toContain("Resource demo://resource/dynamic/text/3 (text/plain):");
    expect(links!.content).toMatch(/Resource link: .* <demo:\/\/resource\/dynamic\/[a-z]+\/1>/);
  });

  it("a server-side error (isError) reaches the model as an is_error tool_result", async () => {
    const mcp = await everything();
    const model = await mockModel([
      toolTurn({
        name: "everything_get-resource-reference",
        input: { resourceType: "Text", resourceId: -1 },
      }),
      textTurn("ok"),
    ]);
    await createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools }).prompt("x");
    const [failed] = toolResults(model.requests[1]!.body);
    expect(failed).toMatchObject({ is_error: true });
    expect(failed!.content).toContain("Invalid resourceId");
  });
});

describe("server-filesystem over stdio (M1)", () => {
  it("the agent lists and reads files through it, and its refusal outside the allowed directory reaches the model", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "al-mcp-fs-")));
    try {
      await writeFile(join(dir, "notes.txt"), "install with pnpm add agent-lattice\n");
      const mcp = await connectMCPStdioServer(
        { command: process.execPath, args: [FILESYSTEM, dir] },
        { namePrefix: "fs", stderr: "ignore" },
      );
      open.push(mcp);
      const model = await mockModel([
        toolTurn({ name: "fs_list_directory", input: { path: dir } }),
        toolTurn({ name: "fs_read_text_file", input: { path: join(dir, "notes.txt") } }),
        toolTurn({ name: "fs_write_file", input: { path: join(dir, "answer.txt"), content: "42" } }),
        toolTurn({ name: "fs_read_text_file", input: { path: "/etc/hostname" } }),
        textTurn("read it"),
      ]);
      const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m", tools: mcp.tools });
      const result = await agent.prompt("what do the notes say?");
      expect(result.subtype).toBe("success");
      expect(offeredTools(model.requests[0]!.body)).toEqual(
        expect.arrayContaining(["fs_read_text_file", "fs_list_directory"]),
      );
      expect(toolResults(model.requests[1]!.body)[0]!.content).toContain("[FILE] notes.txt");
      expect(toolResults(model.requests[2]!.body)[0]!.content).toBe("install with pnpm add agent-lattice\n");
      expect(toolResults(model.requests[3]!.body)[0]).not.toHaveProperty("is_error");
      expect(await readFile(join(dir, "answer.txt"), "utf8")).toBe("42");
      const [denied] = toolResults(model.requests[4]!.body);
      expect(denied).toMatchObject({ is_error: true });
      expect(denied!.content).toMatch(/outside allowed directories|Access denied/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
