import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LS_MAX_ENTRIES } from "../src/tools/limits.js";
import { call, tempDir, text, toolsFor } from "./helpers.js";

describe("LS", () => {
  it("lists entries sorted by name, marks directories and shows symlink targets", async () => {
    const dir = tempDir("ls-");
    writeFileSync(`${dir}/b.txt`, "");
    writeFileSync(`${dir}/a.txt`, "");
    mkdirSync(`${dir}/src`);
    symlinkSync(`${dir}/src`, `${dir}/link`);
    const result = await call(toolsFor({ cwd: dir }).LS, {});
    expect(text(result)).toBe(`${dir}/\n  a.txt\n  b.txt\n  link/ -> ${dir}/src\n  src/`);
  });

  it("leaves out names matching the ignore globs", async () => {
    const dir = tempDir("ls-");
    for (const name of ["keep.ts", "drop.log", "other.log"]) writeFileSync(`${dir}/${name}`, "");
    mkdirSync(`${dir}/dist`);
    const output = text(await call(toolsFor({ cwd: dir }).LS, { path: dir, ignore: ["*.log", "dist"] }));
    expect(output).toBe(`${dir}/\n  keep.ts`);
  });

  it(`caps the listing at ${LS_MAX_ENTRIES} entries with a note`, async () => {
    const dir = tempDir("ls-");
    for (let index = 0; index < LS_MAX_ENTRIES + 5; index++)
      writeFileSync(`${dir}/f${String(index).padStart(5, "0")}`, "");
    const output = text(await call(toolsFor({ cwd: dir }).LS, {}));
    expect(output.split("\n")).toHaveLength(LS_MAX_ENTRIES + 2);
    expect(output).toContain(`[${LS_MAX_ENTRIES + 5} entries; showing the first ${LS_MAX_ENTRIES}.`);
  });

  it("reports an empty directory, a file and a missing path", async () => {
    const dir = tempDir("ls-");
    mkdirSync(`${dir}/empty`);
    writeFileSync(`${dir}/file.txt`, "");
    const tools = toolsFor({ cwd: dir });
    expect(text(await call(tools.LS, { path: "empty" }))).toBe(`${dir}/empty is empty.`);
    const file = await call(tools.LS, { path: "file.txt" });
    expect(file.isError).toBe(true);
    expect(text(file)).toContain("is a file");
    const missing = await call(tools.LS, { path: "nope" });
    expect(missing.isError).toBe(true);
  });
});
