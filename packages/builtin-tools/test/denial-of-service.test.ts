// Root cause 10 of issue 11: bounded work. Each case must finish within a generous bound while the host's event
// loop keeps ticking (these are bounds, not speed measurements: the benchmarks in bench/ measure speed).
import { execFileSync } from "node:child_process";
import { closeSync, ftruncateSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { call, tempDir, text, toolsFor } from "./helpers.js";

/** Runs `work` while a 10 ms interval ticks; returns its result, the elapsed time and the longest tick gap. */
async function watched<T>(
  work: () => Promise<T>,
): Promise<{ value: T; elapsedMs: number; maxGapMs: number }> {
  let last = Date.now();
  let maxGapMs = 0;
  const ticker = setInterval(() => {
    const now = Date.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 10);
  const started = Date.now();
  try {
    const value = await work();
    return { value, elapsedMs: Date.now() - started, maxGapMs: Math.max(maxGapMs, Date.now() - last) };
  } finally {
    clearInterval(ticker);
  }
}

const BACKTRACKING_GLOB = "*a*a*a*a*a*a*a*a*a*a*b";

function layout() {
  const dir = tempDir("dos-");
  execFileSync("mkfifo", [`${dir}/fifo`]);
  mkdirSync(`${dir}/tree`);
  // A name that makes a backtracking glob engine explore every way to place its stars.
  writeFileSync(`${dir}/tree/${"a".repeat(120)}`, "x\n");
  writeFileSync(`${dir}/tree/ok.txt`, "needle\n");
  return { dir, tools: toolsFor({ cwd: dir, bash: { sandbox: false } }) };
}

describe("bounded work: FIFOs and devices are refused without blocking", () => {
  it.for([
    ["Read", { file_path: "fifo" }, /not a regular file/],
    ["Write", { file_path: "fifo", content: "x" }, /not a regular file \(it is a FIFO\)/],
    ["Edit", { file_path: "fifo", old_string: "a", new_string: "b" }, /not a regular file \(it is a FIFO\)/],
    ["Grep", { pattern: "x", path: "fifo" }, /not a regular file or directory/],
  ] as const)("%s on a FIFO returns at once", async ([tool, input, message]) => {
    const { tools } = layout();
    const { value, elapsedMs, maxGapMs } = await watched(() => call(tools[tool], input));
    expect(value.isError).toBe(true);
    expect(text(value)).toMatch(message);
    expect(elapsedMs).toBeLessThan(5000);
    expect(maxGapMs).toBeLessThan(1000);
  });

  it("many Write/Edit calls on a FIFO at once do not starve the thread pool", async () => {
    const { dir, tools } = layout();
    const calls = Array.from({ length: 16 }, (_, index) =>
      index % 2
        ? call(tools.Write, { file_path: "fifo", content: "x" })
        : call(tools.Edit, { file_path: "fifo", old_string: "a", new_string: "b" }),
    );
    const { elapsedMs } = await watched(async () => {
      await Promise.all(calls);
      return readFile(`${dir}/tree/ok.txt`, "utf8"); // a thread-pool operation still completes
    });
    expect(elapsedMs).toBeLessThan(5000);
  });

  it("Grep skips a FIFO met while walking a directory", async () => {
    const { dir, tools } = layout();
    const { value, elapsedMs } = await watched(() => call(tools.Grep, { pattern: "needle", path: dir }));
    expect(text(value)).toContain("ok.txt");
    expect(elapsedMs).toBeLessThan(5000);
  });
});

describe("bounded work: glob matching is linear", () => {
  it.for([
    ["Glob", { pattern: `tree/${BACKTRACKING_GLOB}` }],
    ["LS", { path: "tree", ignore: [BACKTRACKING_GLOB] }],
    ["Grep", { pattern: "x", path: "tree", glob: BACKTRACKING_GLOB }],
    ["Bash", { command: `rm -f ./tree/${BACKTRACKING_GLOB}` }],
  ] as const)("%s with %j finishes within the bound", async ([tool, input]) => {
    const { tools } = layout();
    const { value, elapsedMs, maxGapMs } = await watched(() => call(tools[tool], input));
    expect(value).toBeDefined();
    expect(elapsedMs).toBeLessThan(5000);
    expect(maxGapMs).toBeLessThan(1000);
  });
});

describe("bounded work: Grep regular expressions run under a deadline, off the event loop", () => {
  it("a catastrophically backtracking pattern is stopped with a clear error while the loop keeps ticking", async () => {
    const dir = tempDir("dos-regex-");
    writeFileSync(`${dir}/line.txt`, `${"a".repeat(40)}!\n`);
    const tools = toolsFor({ cwd: dir });
    const { value, elapsedMs, maxGapMs } = await watched(() =>
      call(tools.Grep, { pattern: "(a+)+$", path: dir }),
    );
    expect(value.isError).toBe(true);
    expect(text(value)).toMatch(/Grep stopped: the regular expression ran for more than 5 s on .*line\.txt/);
    expect(text(value)).toContain("catastrophic backtracking");
    expect(elapsedMs).toBeLessThan(15_000);
    expect(maxGapMs).toBeLessThan(1000);
    // The worker was replaced: the next search works.
    writeFileSync(`${dir}/ok.txt`, "fine\n");
    expect(text(await call(tools.Grep, { pattern: "fine", path: dir }))).toContain("ok.txt");
  }, 30_000);
});

describe("bounded work: Read costs the bytes it reads, not a file's apparent size", () => {
  it("a sparse file of 64 GiB after 15 KiB of text is read in bounded time", async () => {
    const dir = tempDir("dos-sparse-");
    const header = Array.from(
      { length: 1024 },
      (_, index) => `line ${String(index + 1).padStart(9, "0")}`,
    ).join("\n");
    const fd = openSync(`${dir}/sparse.log`, "w");
    writeSync(fd, `${header}\n`);
    ftruncateSync(fd, 64 * 1024 ** 3);
    closeSync(fd);
    const tools = toolsFor({ cwd: dir });
    const { value, elapsedMs, maxGapMs } = await watched(() =>
      call(tools.Read, { file_path: "sparse.log", offset: 1000, limit: 5000 }),
    );
    expect(text(value)).toContain("  1024\tline 000001024");
    expect(text(value)).toContain("of more than 1024.");
    expect(text(value)).toContain(
      "[The scan stopped early: NUL bytes begin at byte 15360 (binary data or a sparse region).]",
    );
    expect(elapsedMs).toBeLessThan(5000);
    expect(maxGapMs).toBeLessThan(1000);
  });
});
