// Issue 17: usable at 10,000 events. The page renders only the rows in view (virtualized), scrolls, searches and
// filters the whole trace, and opens any row. (Speed is measured by bench/trace-viewer.mjs, not asserted here.)
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { syntheticTrace } from "../scripts/synthetic-trace.mjs";
import { renderTraceHtml } from "../src/index.js";
import { buildTraceModel } from "../src/model/trace-model.js";
import { visibleRows } from "../src/model/visible-rows.js";
import { describeInChromium, launchChromium, watchPage } from "./support/chromium.js";

describeInChromium("a 10,000-event trace", () => {
  const events = syntheticTrace({ events: 10_000 });
  const model = buildTraceModel(events);
  const rowCount = visibleRows(model, new Set(), {}).rows.length;
  const failedCalls = events.filter(
    event => event.type === "tool_result" && (event.data as { is_error?: boolean }).is_error,
  ).length;
  let dir: string;
  let browser: Browser;
  let page: Page;
  let problems: ReturnType<typeof watchPage>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "al-viewer-scale-"));
    const html = join(dir, "big.html");
    await writeFile(html, renderTraceHtml(events, { title: "10k" }));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    problems = watchPage(page);
    await page.goto(pathToFileURL(html).href);
    await page.waitForFunction(() => performance.getEntriesByName("trace-viewer:interactive").length > 0);
  });
  afterAll(async () => {
    expect(problems.pageErrors).toEqual([]);
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("shows all of it, with only the rows in view in the DOM", async () => {
    expect(rowCount).toBeGreaterThan(3000);
    expect(await page.locator('[data-total="events"]').textContent()).toBe("10,000");
    expect(await page.locator(".row-count").textContent()).toBe(`${rowCount.toLocaleString("en-US")} rows`);
    expect(await page.locator(".grid-body .row").count()).toBeLessThan(100);
  });

  it("scrolls anywhere and opens the row there", async () => {
    await page.locator(".grid-body").evaluate(body => {
      body.scrollTop = body.scrollHeight / 2;
    });
    await expect
      .poll(() =>
        page.locator(".grid-body").evaluate(body => {
          const top = (body as HTMLElement).scrollTop;
          return [...body.querySelectorAll(".row")].some(
            row => Math.abs(Number(row.getAttribute("data-index")) * 24 - top) < 48,
          );
        }),
      )
      .toBe(true);
    await page.locator(".grid-body").focus();
    await page.keyboard.press("End");
    const last = page.locator(".grid-body .row.selected");
    await expect.poll(() => last.getAttribute("data-index")).toBe(String(rowCount - 1));
    expect(await page.locator(".details h2").textContent()).toBe(await last.locator(".label").textContent());
  });

  it("searches and filters the whole trace", async () => {
    await page.fill("#filter-text", "enoent");
    await expect
      .poll(() => page.locator(".row-count").textContent())
      .toBe(`${failedCalls.toLocaleString("en-US")} matching rows`);
    await page.fill("#filter-text", "");
    await page.selectOption("#filter-type", "errors");
    const errors = [...model.nodes.values()].filter(node => node.error).length;
    await expect.poll(() => page.locator(".row-count").textContent()).toBe(`${errors} matching rows`);
    expect(await page.locator(".grid-body .row.has-error").count()).toBeGreaterThan(0);
  });
});
