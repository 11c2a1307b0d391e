import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GLOB_MAX_RESULTS } from "../src/tools/limits.js";
import { call, tempDir, text, toolsFor } from "./helpers.js";

function tree(files: string[]): string {
  const dir = tempDir("glob-");
  for (const file of files) {
    mkdirSync(`${dir}/${file}`.replace(/\/[^/]*$/, ""), { recursive: true });
    writeFileSync(`${dir}/${file}`, file);
  }
  return dir;
}

const setTime = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

describe("Glob", () => {
  it("matches recursively with ** and only at the top level with *", async () => {
    const dir = tree(["a.ts", "src/b.ts", "src/deep/c.ts", "src/d.js"]);
    const glob = toolsFor({ cwd: dir }).Glob;
    expect(
      text(await call(glob, { pattern: "**/*.ts" }))
        .split("\n")
        .sort(),
    ).toEqual([`${dir}/a.ts`, `${dir}/src/b.ts`, `${dir}/src/deep/c.ts`].sort());
    expect(text(await call(glob, { pattern: "*.ts" }))).toBe(`${dir}/a.ts`);
    expect(
      text(await call(glob, { pattern: "src/*.{js,ts}" }))
        .split("\n")
        .sort(),
    ).toEqual([`${dir}/src/b.ts`, `${dir}/src/d.js`]);
  });

  it("sorts by modification time, newest first, then by path", async () => {
    const dir = tree(["old.md", "new.md", "mid.md", "tie-b.md", "tie-a.md"]);
    setTime(`${dir}/old.md`, 1_000);
    setTime(`${dir}/mid.md`, 2_000);
    setTime(`${dir}/new.md`, 3_000);
    setTime(`${dir}/tie-a.md`, 500);
    setTime(`${dir}/tie-b.md`, 500);
    const output = text(await call(toolsFor({ cwd: dir }).Glob, { pattern: "*.md" }));
    expect(output.split("\n")).toEqual(
      ["new.md", "mid.md", "old.md", "tie-a.md", "tie-b.md"].map(name => `${dir}/${name}`),
    );
  });

  it("searches under path, and accepts an absolute pattern", async () => {
    const dir = tree(["x/one.txt", "y/two.txt"]);
    const glob = toolsFor({ cwd: tempDir("glob-cwd-") }).Glob;
    expect(text(await call(glob, { pattern: "*.txt", path: `${dir}/x` }))).toBe(`${dir}/x/one.txt`);
    expect(text(await call(glob, { pattern: `${dir}/y/*.txt` }))).toBe(`${dir}/y/two.txt`);
  });

  it("says when nothing matches", async () => {
    const dir = tree(["a.ts"]);
    const result = await call(toolsFor({ cwd: dir }).Glob, { pattern: "**/*.rs" });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe(`No files match **/*.rs in ${dir}.`);
  });

  it(`returns at most ${GLOB_MAX_RESULTS} paths and says how many matched`, async () => {
    const dir = tree(Array.from({ length: GLOB_MAX_RESULTS + 50 }, (_, index) => `many/f${index}.txt`));
    const output = text(await call(toolsFor({ cwd: dir }).Glob, { pattern: "**/*.txt" }));
    expect(output.split("\n")).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(output).toContain(
      `[${GLOB_MAX_RESULTS + 50} files matched; showing the ${GLOB_MAX_RESULTS} most recently modified.`,
    );
  });

  it("does not descend into node_modules or .git unless the search starts inside them", async () => {
    const dir = tree(["src/a.js", "node_modules/pkg/index.js", ".git/hooks/x.js", ".github/ci.js"]);
    const glob = toolsFor({ cwd: dir }).Glob;
    expect(
      text(await call(glob, { pattern: "**/*.js" }))
        .split("\n")
        .sort(),
    ).toEqual([`${dir}/.github/ci.js`, `${dir}/src/a.js`]);
    expect(text(await call(glob, { pattern: "**/*.js", path: "node_modules" }))).toBe(
      `${dir}/node_modules/pkg/index.js`,
    );
  });
});
