import { describe, expect, it } from "vitest";
import { runMcpFilesystem } from "../src/mcp-filesystem.js";

describe("MCP filesystem example (offline)", () => {
  it("connects the filesystem MCP server, lets the agent list and read through it, and closes it", {
    timeout: 60_000,
  }, async () => {
    for (const key of ["DEEPSEEK_API_KEY", "ANTHROPIC_API_KEY", "AGENT_LATTICE_MODEL"])
      delete process.env[key];
    const chunks: string[] = [];
    const code = await runMcpFilesystem(text => chunks.push(text));
    const output = chunks.join("");
    expect(code).toBe(0);
    expect(output).toMatch(/\[mcp\] fs: \d+ tools \(.*fs_list_directory/);
    expect(output).toContain("[tool call] fs_list_directory(");
    expect(output).toMatch(/\[tool result\] .*\[FILE\] README\.md/s);
    expect(output).toContain("[tool result] # examples");
    expect(output).toContain("[result: success · 3 model turns]");
  });
});
