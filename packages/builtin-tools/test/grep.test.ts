import { mkdirSync, writeFileSync } from "node:fs";
import type { ToolDefinition } from "@agent-lattice/core";
import { describe, expect, it } from "vitest";
import { GREP_MAX_OUTPUT_CHARS } from "../src/tools/limits.js";
import { call, tempDir, text, toolsFor } from "./helpers.js";

function tree(files: Record<string, string | Buffer>): {
  dir: string;
  grep: ToolDefinition | undefined;
} {
  const dir = tempDir("grep-");
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(`${dir}/${file}`.replace(/\/[^/]*$/, ""), { recursive: true });
    writeFileSync(`${dir}/${file}`, content);
  }
  return { dir, grep: toolsFor({ cwd: dir }).Grep };
}

describe("Grep", () => {
  it("lists matching files sorted by path by default", async () => {
    const { dir, grep } = tree({ "b.ts": "const needle = 1;", "a.ts": "needle()", "c.ts": "nothing" });
    expect(text(await call(grep, { pattern: "needle" }))).toBe(
      `${dir}/a.ts\n${dir}/b.ts\n[2 files matched.]`,
    );
  });

  it("shows matching lines with numbers in content mode, and without with -n false", async () => {
    const { dir, grep } = tree({ "a.txt": "one\ntwo\nthree\n" });
    expect(text(await call(grep, { pattern: "t", output_mode: "content" }))).toBe(
      `${dir}/a.txt:2:two\n${dir}/a.txt:3:three`,
    );
    expect(text(await call(grep, { pattern: "^o", output_mode: "content", "-n": false }))).toBe(
      `${dir}/a.txt:one`,
    );
  });

  it("adds -A/-B/-C context lines with -- between separate blocks", async () => {
    const { dir, grep } = tree({ "a.txt": "1\n2\nhit\n4\n5\n6\n7\nhit\n9\n" });
    const output = text(await call(grep, { pattern: "hit", output_mode: "content", "-C": 1 }));
    expect(output).toBe(
      [
        `${dir}/a.txt-2-2`,
        `${dir}/a.txt:3:hit`,
        `${dir}/a.txt-4-4`,
        "--",
        `${dir}/a.txt-7-7`,
        `${dir}/a.txt:8:hit`,
        `${dir}/a.txt-9-9`,
      ].join("\n"),
    );
    const after = text(await call(grep, { pattern: "hit", output_mode: "content", "-A": 1, "-B": 0 }));
    expect(after.split("\n")[1]).toBe(`${dir}/a.txt-4-4`);
  });

  it("counts matching lines per file", async () => {
    const { dir, grep } = tree({ "a.txt": "x\nx\ny\n", "b.txt": "x\n" });
    expect(text(await call(grep, { pattern: "x", output_mode: "count" }))).toBe(
      `${dir}/a.txt:2\n${dir}/b.txt:1\n[3 matching lines in 2 files.]`,
    );
  });

  it("is case-insensitive with -i and filters files with glob", async () => {
    const { dir, grep } = tree({ "a.ts": "Hello", "b.md": "hello", "src/c.ts": "HELLO" });
    expect(text(await call(grep, { pattern: "hello", "-i": true, glob: "*.ts" }))).toBe(
      `${dir}/a.ts\n${dir}/src/c.ts\n[2 files matched.]`,
    );
    expect(text(await call(grep, { pattern: "hello", glob: "*.ts" }))).toContain("No matches");
  });

  it("limits entries with head_limit and says how many there were", async () => {
    const { grep } = tree(
      Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`f${index}.txt`, "match"])),
    );
    const output = text(await call(grep, { pattern: "match", head_limit: 3 }));
    expect(output.split("\n").slice(0, 3)).toHaveLength(3);
    expect(output).toContain("[Showing the first 3 of 10 entries (head_limit).]");
  });

  it("skips binary files and says so", async () => {
    const { dir, grep } = tree({
      "text.txt": "secret",
      "blob.bin": Buffer.from([115, 101, 99, 114, 101, 116, 0, 1]),
    });
    expect(text(await call(grep, { pattern: "secret" }))).toBe(
      `${dir}/text.txt\n[1 file matched.]\n[Skipped 1 binary file.]`,
    );
  });

  it("says when nothing matches, and rejects an invalid regular expression", async () => {
    const { dir, grep } = tree({ "a.txt": "abc" });
    expect(text(await call(grep, { pattern: "zzz" }))).toBe(`No matches for "zzz" in ${dir}.`);
    const invalid = await call(grep, { pattern: "(unclosed" });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain("Invalid regular expression");
  });

  it(`caps the output at ${GREP_MAX_OUTPUT_CHARS} characters with a note`, async () => {
    const { grep } = tree({
      "big.txt": Array.from({ length: 5000 }, (_, index) => `match number ${index}`).join("\n"),
    });
    const output = text(await call(grep, { pattern: "match", output_mode: "content" }));
    expect(output.length).toBeLessThan(GREP_MAX_OUTPUT_CHARS + 500);
    expect(output).toMatch(/\[Output cut at 30000 characters: \d+ more lines not shown/);
  });

  it("does not search node_modules or .git unless path is inside them; searches a single file", async () => {
    const { dir, grep } = tree({
      "src/a.js": "token",
      "node_modules/p/i.js": "token",
      ".git/config": "token",
    });
    expect(text(await call(grep, { pattern: "token" }))).toBe(`${dir}/src/a.js\n[1 file matched.]`);
    expect(text(await call(grep, { pattern: "token", path: "node_modules" }))).toBe(
      `${dir}/node_modules/p/i.js\n[1 file matched.]`,
    );
    expect(text(await call(grep, { pattern: "token", path: ".git/config", output_mode: "content" }))).toBe(
      `${dir}/.git/config:1:token`,
    );
  });
});
