// The agent-lattice-trace command (the built bin, as installed): view writes one HTML file, usage errors exit 2
// with the usage text, unreadable files exit 1 naming the file.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TRUNCATED_MARK } from "../src/model/bounded-event.js";
import { runEvents } from "./support/events.js";
import { deeplyNestedTrace } from "./support/hostile-trace.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-viewer-cli-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: "utf8" });
const lines = (events: unknown[]) => events.map(event => `${JSON.stringify(event)}\n`).join("");

describe("agent-lattice-trace", () => {
  it("view merges several files into trace.html in the working directory by default", async () => {
    const a = runEvents("a", "lead");
    a.start();
    const b = runEvents("b", "helper");
    b.start();
    await writeFile(join(dir, "a.jsonl"), lines(a.events));
    await writeFile(join(dir, "b.jsonl"), `${lines(b.events)}{"torn`);
    const result = run("view", "a.jsonl", "b.jsonl");
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`wrote ${join(dir, "trace.html")} (4 events from 2 files)`);
    const html = await readFile(join(dir, "trace.html"), "utf8");
    expect(html).toContain("<title>a.jsonl, b.jsonl</title>");
    expect(html).toContain('"run_id":"b"');
  });

  it("usage errors exit 2 with the usage; an unreadable file exits 1 naming it", async () => {
    for (const args of [
      [],
      ["show", "x.jsonl"],
      ["view"],
      ["view", "x.jsonl", "--bogus"],
      ["serve", "x.jsonl", "--out", "y"],
    ]) {
      const result = run(...args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr).toContain("Usage:");
    }
    const missing = run("view", "nope.jsonl");
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('Cannot read trace file "nope.jsonl": no such file');
    expect(run("serve", "x.jsonl", "--port", "99999").stderr).toContain(
      "--port must be an integer from 0 to 65535",
    );
  });

  it("--help and --version", async () => {
    expect(run("--help").stdout).toContain("agent-lattice-trace serve <trace.jsonl…>");
    const { version } = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    expect(run("--version").stdout.trim()).toBe(version);
  });

  it("view: an event nested 5,000 levels deep is shown truncated, and the page is written", async () => {
    await writeFile(join(dir, "deep.jsonl"), deeplyNestedTrace(5_000));
    const result = run("view", "deep.jsonl");
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const html = await readFile(join(dir, "trace.html"), "utf8");
    expect(html).toContain(TRUNCATED_MARK);
    expect(html).toContain('"run_id":"deep"');
  });

  it("view: a page over --max-page-mb exits 1 with the reason and writes nothing", async () => {
    await writeFile(join(dir, "deep.jsonl"), deeplyNestedTrace(10));
    const result = run("view", "deep.jsonl", "--max-page-mb", "0.01");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Cannot build the trace page for 3 events: the page would be");
    expect(result.stderr).toContain("over the 0.01 MB limit");
    await expect(readFile(join(dir, "trace.html"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(run("view", "deep.jsonl", "--max-page-mb", "-1").status).toBe(2);
  });

  it("serve: a 5,000-level event does not kill the server; every page request is answered", async () => {
    await writeFile(join(dir, "deep.jsonl"), deeplyNestedTrace(5_000));
    const child = spawn(process.execPath, [CLI, "serve", "deep.jsonl"], { cwd: dir });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = "";
        child.stdout.setEncoding("utf8").on("data", chunk => {
          output += chunk;
          const found = /http:\/\/127\.0\.0\.1:\d+\/\S+\//.exec(output);
          if (found) resolve(found[0]);
        });
        child.once("exit", code => reject(new Error(`serve exited ${code} before listening: ${output}`)));
      });
      for (let request = 0; request < 2; request++) {
        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(await response.text()).toContain(TRUNCATED_MARK);
      }
      expect(child.exitCode).toBe(null);
    } finally {
      child.kill();
    }
  });
});
