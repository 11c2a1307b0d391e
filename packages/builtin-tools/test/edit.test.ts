import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { call, tempDir, text, toolsFor } from "./helpers.js";

function setup(content?: string) {
  const dir = tempDir("edit-");
  if (content !== undefined) writeFileSync(`${dir}/f.txt`, content);
  return { dir, edit: toolsFor({ cwd: dir }).Edit, read: () => readFileSync(`${dir}/f.txt`, "utf8") };
}

describe("Edit", () => {
  it("replaces text that occurs exactly once", async () => {
    const { edit, read } = setup("const a = 1;\nconst b = 2;\n");
    const result = await call(edit, { file_path: "f.txt", old_string: "b = 2", new_string: "b = 3" });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe("Edited f.txt: replaced 1 occurrence.");
    expect(read()).toBe("const a = 1;\nconst b = 3;\n");
  });

  it("refuses an ambiguous old_string, saying how many matches and what to do", async () => {
    const { edit, read } = setup("x\nx\nx\n");
    const result = await call(edit, { file_path: "f.txt", old_string: "x", new_string: "y" });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "old_string matches 3 places in f.txt; it must match exactly once. Add surrounding lines to make it unique, or set replace_all: true to replace all 3.",
    );
    expect(read()).toBe("x\nx\nx\n");
  });

  it("replaces every occurrence with replace_all", async () => {
    const { edit, read } = setup("x\nx\nx\n");
    const result = await call(edit, {
      file_path: "f.txt",
      old_string: "x",
      new_string: "y",
      replace_all: true,
    });
    expect(text(result)).toBe("Edited f.txt: replaced 3 occurrences.");
    expect(read()).toBe("y\ny\ny\n");
  });

  it("says when old_string is not found and how to get the exact text", async () => {
    const { edit } = setup("hello\n");
    const result = await call(edit, { file_path: "f.txt", old_string: "  hello", new_string: "bye" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      "old_string was not found in f.txt. It must match exactly, including whitespace",
    );
  });

  it("rejects identical old_string and new_string", async () => {
    const { edit } = setup("same\n");
    const result = await call(edit, { file_path: "f.txt", old_string: "same", new_string: "same" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("identical");
  });

  it("keeps $& and $1 in new_string literal", async () => {
    const { edit, read } = setup("price\n");
    await call(edit, { file_path: "f.txt", old_string: "price", new_string: "$& costs $1" });
    expect(read()).toBe("$& costs $1\n");
  });

  it("creates a missing file from an empty old_string, and refuses it on a non-empty file", async () => {
    const { dir, edit } = setup("content");
    expect(text(await call(edit, { file_path: "new.txt", old_string: "", new_string: "fresh" }))).toContain(
      "Created new.txt",
    );
    expect(readFileSync(`${dir}/new.txt`, "utf8")).toBe("fresh");
    const refused = await call(edit, { file_path: "f.txt", old_string: "", new_string: "x" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("already exists and is not empty");
  });

  it("reports a missing file", async () => {
    const { edit } = setup();
    const result = await call(edit, { file_path: "nope.txt", old_string: "a", new_string: "b" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("does not exist. Use Write");
  });

  it("matches multi-line text copied from Read in a CRLF file and keeps CRLF", async () => {
    const { edit, read } = setup("one\r\ntwo\r\nthree\r\n");
    const result = await call(edit, { file_path: "f.txt", old_string: "one\ntwo", new_string: "1\n2" });
    expect(text(result)).toContain("CRLF");
    expect(read()).toBe("1\r\n2\r\nthree\r\n");
  });

  it("refuses binary files", async () => {
    const { dir, edit } = setup();
    writeFileSync(`${dir}/b.bin`, Buffer.from([0, 1, 2, 3, 65]));
    const result = await call(edit, { file_path: "b.bin", old_string: "A", new_string: "B" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("binary");
  });
});
