import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { READ_DEFAULT_LIMIT, READ_MAX_LINE_CHARS } from "../src/tools/limits.js";
import { call, tempDir, text, toolsFor } from "./helpers.js";

function setup() {
  const dir = tempDir("read-");
  return { dir, tools: toolsFor({ cwd: dir }) };
}

const lines = (count: number, make = (n: number) => `line ${n}`) =>
  Array.from({ length: count }, (_, index) => make(index + 1)).join("\n");

describe("Read", () => {
  it("numbers lines like cat -n: right-aligned number, tab, text", async () => {
    const { dir, tools } = setup();
    writeFileSync(`${dir}/a.txt`, "alpha\nbeta\n");
    const result = await call(tools.Read, { file_path: "a.txt" });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe("     1\talpha\n     2\tbeta");
  });

  it("pages with offset and limit and says how to continue", async () => {
    const { dir, tools } = setup();
    writeFileSync(`${dir}/a.txt`, lines(10));
    const output = text(await call(tools.Read, { file_path: `${dir}/a.txt`, offset: 4, limit: 3 }));
    expect(output.split("\n").slice(0, 3)).toEqual(["     4\tline 4", "     5\tline 5", "     6\tline 6"]);
    expect(output).toContain("[Showing lines 4-6 of 10. Read again with offset: 7 to continue");
  });

  it(`returns at most ${READ_DEFAULT_LIMIT} lines of a large file by default, with the total`, async () => {
    const { dir, tools } = setup();
    writeFileSync(`${dir}/big.txt`, lines(5000));
    const output = text(await call(tools.Read, { file_path: "big.txt" }));
    expect(output).toContain(`  2000\tline 2000`);
    expect(output).not.toContain("line 2001");
    expect(output).toContain("[Showing lines 1-2000 of 5000. Read again with offset: 2001");
  });

  it("reads a page deep inside a large file", async () => {
    const { dir, tools } = setup();
    writeFileSync(`${dir}/big.txt`, lines(200_000));
    const output = text(await call(tools.Read, { file_path: "big.txt", offset: 150_000, limit: 2 }));
    expect(output).toContain("150000\tline 150000\n150001\tline 150001");
    expect(output).toContain("of 200000");
  });

  it("cuts very long lines and says how much was left out", async () => {
    const { dir, tools } = setup();
    writeFileSync(`${dir}/long.txt`, "x".repeat(READ_MAX_LINE_CHARS + 500));
    const output = text(await call(tools.Read, { file_path: "long.txt" }));
    expect(output).toContain("[line truncated: 500 more characters]");
  });

  it("stops early when the page would exceed the output size, telling the next offset", async () => {
    const { dir, tools } = setup();
    writeFileSync(
      `${dir}/wide.txt`,
      lines(1000, n => `${n} ${"y".repeat(1500)}`),
    );
    const output = text(await call(tools.Read, { file_path: "wide.txt" }));
    expect(output).toMatch(
      /\[Showing lines 1-(\d+) of 1000 \(output size limit reached\)\. Read again with offset: \d+/,
    );
    expect(output.length).toBeLessThan(110_000);
  });

  it("refuses binary files with a helpful message", async () => {
    const { dir, tools } = setup();
    writeFileSync(`${dir}/image.bin`, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x03]));
    const result = await call(tools.Read, { file_path: "image.bin" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/looks like a binary file \(8 bytes\).*Bash/);
  });

  it("reports an empty file, a directory, a missing file and an offset past the end", async () => {
    const { dir, tools } = setup();
    writeFileSync(`${dir}/empty.txt`, "");
    writeFileSync(`${dir}/three.txt`, "a\nb\nc\n");
    expect(text(await call(tools.Read, { file_path: "empty.txt" }))).toContain("is empty");
    const directory = await call(tools.Read, { file_path: "." });
    expect(directory.isError).toBe(true);
    expect(text(directory)).toContain("is a directory");
    const missing = await call(tools.Read, { file_path: "nope.txt" });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("no such file or directory");
    expect(text(await call(tools.Read, { file_path: "three.txt", offset: 9 }))).toContain(
      "has 3 lines; offset 9 is past the end",
    );
  });

  it("shows CRLF files without the carriage returns", async () => {
    const { dir, tools } = setup();
    writeFileSync(`${dir}/crlf.txt`, "one\r\ntwo\r\n");
    expect(text(await call(tools.Read, { file_path: "crlf.txt" }))).toBe("     1\tone\n     2\ttwo");
  });

  it("reads paths outside the writable roots (read-only tools are not gated)", async () => {
    const other = tempDir("read-other-");
    writeFileSync(`${other}/secret.txt`, "visible");
    const tools = toolsFor({ cwd: tempDir("read-cwd-"), allowedDirectories: [] });
    expect(text(await call(tools.Read, { file_path: `${other}/secret.txt` }))).toBe("     1\tvisible");
  });
});
