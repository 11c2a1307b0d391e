// Issue 17 acceptance, in real Chromium: a real agent run (tools + a delegated child, against the mock server,
// traced to JSONL) → `agent-lattice-trace view` → the HTML opened from disk shows the tree, the nesting, the token
// totals and a clicked turn's request and response; filters by agent, type and text; nothing loaded, nothing failed.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import {
  DEMO_ANSWER,
  DEMO_PROMPT,
  DEMO_REVIEW,
  DEMO_USAGE,
  recordDemoTrace,
} from "../scripts/demo-trace.mjs";
import {
  cspViolations,
  describeInChromium,
  launchChromium,
  recordCspViolations,
  treeRows,
  watchPage,
} from "./support/chromium.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const total = (key: keyof (typeof DEMO_USAGE)["lead1"]) =>
  Object.values(DEMO_USAGE)
    .reduce((sum, usage) => sum + usage[key], 0)
    .toLocaleString("en-US");

describeInChromium("the rendered page of a real run (file://)", () => {
  let dir: string;
  let htmlPath: string;
  let browser: Browser;
  let page: Page;
  let problems: ReturnType<typeof watchPage>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "al-viewer-view-"));
    const trace = join(dir, "run.jsonl");
    await recordDemoTrace(trace);
    htmlPath = join(dir, "out", "trace.html");
    const cli = spawnSync(process.execPath, [CLI, "view", trace, "--out", htmlPath], { encoding: "utf8" });
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`wrote ${htmlPath} (24 events from 1 file)`);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    problems = watchPage(page);
    await recordCspViolations(page);
    await page.goto(pathToFileURL(htmlPath).href);
    await page.locator(".grid-body .row").first().waitFor();
    return async () => {
      // Every test: the page ran clean, loaded nothing but itself, and never tripped its own CSP.
      expect(problems.pageErrors).toEqual([]);
      expect(problems.consoleErrors).toEqual([]);
      expect(problems.requests).toEqual([pathToFileURL(htmlPath).href]);
      expect(await cspViolations(page)).toEqual([]);
      await page.close();
    };
  });

  it("shows the run tree: query → turns → tool calls → the delegated agent under the call that started it", async () => {
    const rows = await treeRows(page);
    expect(rows.map(row => [row.depth, row.badge, row.label.split(/[ :{]/)[0] || row.label])).toEqual([
      [0, "run", "lead"],
      [1, "llm", "turn"],
      [2, "tool", "read_file"],
      [2, "tool", "run_tests"],
      [1, "llm", "turn"],
      [2, "delegate", "reviewer"],
      [3, "agent", "reviewer"],
      [4, "llm", "turn"],
      [5, "tool", "grep"],
      [4, "llm", "turn"],
      [1, "llm", "turn"],
    ]);
    expect(rows[0]!.label).toBe(`lead — ${DEMO_PROMPT}`);
    expect(rows[3]!.error).toBe("tool error"); // the failing test run, highlighted
    expect(await page.locator(".row.has-error").count()).toBe(1);
    // Durations on every run, turn and call; tokens per turn.
    for (const row of rows) expect(row.duration).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    expect(rows[1]!.tokens).toEqual(["1,840", "96", "1,536", "0"]);
    expect(rows[9]!.tokens).toEqual(["1,105", "164", "0", "0"]);
    // The waterfall: the delegated run's bar lies inside its call's bar.
    const bar = async (index: number) =>
      page.locator(`.grid-body .row[data-index="${index}"] .bar`).boundingBox();
    const call = (await bar(5))!;
    const child = (await bar(6))!;
    expect(child.x).toBeGreaterThanOrEqual(call.x - 1);
    expect(child.x + child.width).toBeLessThanOrEqual(call.x + call.width + 1);
  });

  it("shows token totals over every turn, delegated ones included", async () => {
    const totals = Object.fromEntries(
      await page
        .locator("[data-total]")
        .evaluateAll(cells => cells.map(cell => [cell.getAttribute("data-total"), cell.textContent])),
    );
    expect(totals).toMatchObject({
      events: "24",
      runs: "2",
      turns: "5",
      tool_calls: "4",
      errors: "1",
      input_tokens: total("input_tokens"),
      output_tokens: total("output_tokens"),
      cache_creation_input_tokens: total("cache_creation_input_tokens"),
      cache_read_input_tokens: total("cache_read_input_tokens"),
    });
  });

  it("a clicked turn shows its full request and response", async () => {
    await page.locator(".grid-body .row", { hasText: DEMO_REVIEW.slice(0, 30) }).click();
    const details = page.locator(".details");
    await expect.poll(() => details.locator("h2").textContent()).toContain("turn 2");
    const response = await details.locator(".response").textContent();
    expect(response).toContain(DEMO_REVIEW);
    const request = await details.locator(".request").textContent();
    expect(request).toContain("You review code for correctness."); // the system prompt as sent
    expect(request).toContain("Review src/cart.ts for rounding errors"); // the delegated task
    expect(request).toContain("tool_use grep toolu_grep"); // the history: the earlier call…
    expect(request).toContain("src/cart.ts:14:  return Math.round"); // …and its result
    const usage = await details
      .locator("table.usage td")
      .evaluateAll(cells => cells.map(cell => [cell.getAttribute("data-usage"), cell.textContent]));
    expect(usage).toEqual([
      ["input", "1,105"],
      ["output", "164"],
      ["cache writes", "0"],
      ["cache reads", "0"],
    ]);
    expect(await details.locator("dd").allTextContents()).toContain("reviewer");
  });

  it("a clicked tool call shows its input and result; the delegation links to its run", async () => {
    await page.locator('.grid-body .row[data-kind="tool"]', { hasText: "run_tests" }).click();
    const details = page.locator(".details");
    await expect.poll(() => details.locator(".error-box").textContent()).toContain("FAIL cart.test.ts");
    expect(await details.textContent()).toContain('"filter": "cart"');
    expect(await details.textContent()).toContain("2 failed, 14 passed");

    await page.locator('.grid-body .row[data-kind="tool"]', { hasText: "reviewer" }).click();
    await details.locator("button.link").click();
    await expect
      .poll(() => page.locator(".details h2").textContent())
      .toBe("reviewer — Review src/cart.ts for rounding errors in applyDiscount and addTax.");
    expect(await page.locator(".details").textContent()).toContain(DEMO_REVIEW);
    await page.locator(".grid-body .row", { hasText: DEMO_ANSWER.slice(0, 20) }).click();
    await page.keyboard.press("ArrowUp");
    await expect
      .poll(() => page.locator(".grid-body .row.selected .label").textContent())
      .toContain("turn 2");
  });

  it("filters by agent, by type and by text; errors are searchable by what they say", async () => {
    const matching = async () => page.locator(".grid-body .row:not(.context) .label").allTextContents();
    await page.selectOption("#filter-agent", "reviewer");
    expect((await matching()).map(label => label.split(/[ :]/)[0])).toEqual([
      "reviewer",
      "turn",
      "grep",
      "turn",
    ]);
    expect(await page.locator(".grid-body .row.context").count()).toBe(3); // lead, its turn 2 and the call, as context
    await page.selectOption("#filter-agent", "");

    await page.click("#show-errors");
    expect(await matching()).toEqual([expect.stringMatching(/^run_tests/)]);
    await page.click("#show-errors");

    await page.selectOption("#filter-type", "delegation");
    expect(await matching()).toEqual([expect.stringMatching(/^reviewer \{"task"/)]);
    await page.selectOption("#filter-type", "");

    await page.fill("#filter-text", "2 FAILED");
    await expect.poll(matching).toEqual([expect.stringMatching(/^run_tests/)]);
    await page.fill("#filter-text", "math.round");
    // Case-insensitive; the file read, the call and run whose results quote it, the turn that asked for it…
    await expect
      .poll(matching)
      .toEqual([
        expect.stringMatching(/^read_file/),
        expect.stringMatching(/^reviewer \{"task"/),
        expect.stringMatching(/^reviewer — /),
        "turn 1: → grep",
        expect.stringMatching(/^grep/),
        expect.stringMatching(/^turn 2: applyDiscount/),
      ]);
    await page.fill("#filter-text", "");
    await expect.poll(() => page.locator(".grid-body .row").count()).toBe(11);
  });

  it("collapses and expands with the toggles", async () => {
    await page
      .locator('.grid-body .row[data-kind="tool"]', { hasText: "reviewer" })
      .locator(".toggle")
      .click();
    expect(await page.locator(".grid-body .row").count()).toBe(7);
    await page.click("#expand-all");
    expect(await page.locator(".grid-body .row").count()).toBe(11);
  });
});
