import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { call, tempDir, text, toolsFor } from "./helpers.js";

describe("Write", () => {
  it("creates a file relative to cwd, with missing parent directories", async () => {
    const dir = tempDir("write-");
    const result = await call(toolsFor({ cwd: dir }).Write, {
      file_path: "a/b/new.txt",
      content: "one\ntwo",
    });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toMatch(/^Created a\/b\/new\.txt .*: 7 bytes, 2 lines\.$/);
    expect(readFileSync(`${dir}/a/b/new.txt`, "utf8")).toBe("one\ntwo");
  });

  it("overwrites an existing file and says so", async () => {
    const dir = tempDir("write-");
    writeFileSync(`${dir}/a.txt`, "old");
    const result = await call(toolsFor({ cwd: dir }).Write, { file_path: `${dir}/a.txt`, content: "" });
    expect(text(result)).toContain("Overwrote");
    expect(readFileSync(`${dir}/a.txt`, "utf8")).toBe("");
  });

  it("refuses to replace a directory", async () => {
    const dir = tempDir("write-");
    mkdirSync(`${dir}/d`);
    const result = await call(toolsFor({ cwd: dir }).Write, { file_path: "d", content: "x" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("is a directory");
  });

  it("denies a write outside the roots with a deterministic permission_denied result", async () => {
    const dir = tempDir("write-");
    const other = tempDir("write-other-");
    const tools = toolsFor({ cwd: dir, allowedDirectories: [dir] });
    const first = await call(tools.Write, { file_path: `${other}/x.txt`, content: "x" });
    const second = await call(tools.Write, { file_path: `${other}/x.txt`, content: "x" });
    expect(first.isError).toBe(true);
    expect(JSON.parse(text(first))).toEqual({
      code: "permission_denied",
      tool: "Write",
      requestedPath: `${other}/x.txt`,
      resolvedPath: `${other}/x.txt`,
      allowedRoots: [dir],
      message: `Write may not write ${other}/x.txt: ${other}/x.txt is outside every writable root. Writes are allowed only inside the workspace roots and task-scoped write grants.`,
      suggestedNextStep: `Write inside ${dir} instead (for example ${dir}/x.txt) and report that path, or ask the delegating manager for a workspaceGrants entry { root: "${other}", access: ["write"] } covering ${other}.`,
    });
    expect(text(second)).toBe(text(first));
  });

  it("with no roots at all, suggests asking for a grant", async () => {
    const dir = tempDir("write-");
    const result = await call(toolsFor({ cwd: dir, allowedDirectories: [] }).Write, {
      file_path: "x.txt",
      content: "x",
    });
    expect(JSON.parse(text(result)).suggestedNextStep).toMatch(
      /^This agent has no writable root: ask the delegating manager/,
    );
  });
});
