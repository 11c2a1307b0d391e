// Issue 17 acceptance, live: `agent-lattice-trace serve` runs in its own process; an agent in this process (real
// HTTP to the mock server, JSONL tracer) works turn by turn while the page is open in Chromium; each turn appears
// as it is written, without a reload.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createBareAgent, createJsonlContextTracer, tool } from "@agent-lattice/core";
import { type MockScriptItem, startMockAnthropicServer, textTurn, toolTurn } from "@agent-lattice/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  cspViolations,
  describeInChromium,
  launchChromium,
  recordCspViolations,
  treeRows,
  watchPage,
} from "./support/chromium.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>(done => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Starts the CLI server and resolves with its URL (the second stdout line). */
function startCli(trace: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, "serve", trace, "--title", "live run"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", chunk => {
      out += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+\/\S+\//.exec(out)?.[0];
      if (url) resolve({ child, url });
    });
    child.stderr!.on("data", chunk => reject(new Error(String(chunk))));
    child.on("exit", code => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

describeInChromium("serve follows a running agent (another process)", () => {
  let dir: string;
  let browser: Browser;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "al-viewer-live-"));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("shows each new turn appended to the file while the page is open", async () => {
    const trace = join(dir, "live.jsonl");
    const { child, url } = await startCli(trace); // before the file exists: it waits for it
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems = watchPage(page);
    await recordCspViolations(page);
    await page.goto(url);
    await expect.poll(() => page.locator(".live-status").textContent()).toBe("● live");
    expect(await page.locator(".empty").isVisible()).toBe(true);

    // The model answers only when the test says so: turn by turn.
    const gates = [deferred(), deferred()];
    const script: MockScriptItem[] = [
      toolTurn({ name: "lookup", input: { key: "answer" }, id: "toolu_lookup" }, { text: "Looking it up." }),
      textTurn("The answer is 42."),
    ];
    const server = await startMockAnthropicServer({
      respond: async (_request, index) => {
        await gates[index]!.promise;
        return script[index]!;
      },
    });
    const lookup = tool("lookup", "Looks up a key.", z.object({ key: z.string() }), async () => ({
      content: "42",
    }));
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      name: "worker",
      tools: [lookup],
    });
    const tracer = createJsonlContextTracer({ path: trace });
    const done = agent.prompt("What is the answer?", { tracer });
    const labels = async () => (await treeRows(page)).map(row => `${"  ".repeat(row.depth)}${row.label}`);

    // The run and its first request are on disk: the page shows turn 1 waiting for the model.
    await expect
      .poll(labels, { timeout: 5000 })
      .toEqual(["worker — What is the answer?", "  turn 1 (awaiting response)"]);
    expect(await page.locator(".empty").isVisible()).toBe(false);

    gates[0]!.resolve();
    await expect
      .poll(labels, { timeout: 5000 })
      .toEqual([
        "worker — What is the answer?",
        "  turn 1: Looking it up. → lookup",
        '    lookup {"key":"answer"}',
        "  turn 2 (awaiting response)",
      ]);
    expect(await page.locator(".grid-body .row.open").count()).toBeGreaterThan(0); // the run is still going

    gates[1]!.resolve();
    await done;
    await tracer.close!();
    await expect
      .poll(async () => (await labels()).at(-1), { timeout: 5000 })
      .toBe("  turn 2: The answer is 42.");
    expect(await page.locator(".grid-body .row.open").count()).toBe(0);
    expect(await page.locator('[data-total="turns"]').textContent()).toBe("2");
    expect(await page.title()).toBe("live run");

    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
    expect(problems.requests.every(request => request.startsWith(url))).toBe(true); // page + its event stream only
    expect(await cspViolations(page)).toEqual([]);

    await page.close();
    await agent.close();
    await server.close();
    const exited = new Promise(resolve => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
