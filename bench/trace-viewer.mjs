// Trace viewer at scale: a 10,000-event trace (scripts/synthetic-trace.mjs: realistic runs, delegations, errors,
// requests carrying their whole history) → `agent-lattice-trace view` work (read + parse the JSONL, render the
// HTML, write it) → opened from disk in Chromium (Debian's, driven by playwright-core), measuring the time to
// first paint (first-contentful-paint) and to the tree being interactive (the page's own performance mark, set
// once the tree is rendered and its handlers bound). Interleaved rounds, a fresh page each; medians with IQR and a
// bootstrap 95% interval of the median. Target: under 1 s to first paint. EVENTS and ROUNDS override the size.
import { existsSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { readTraceFiles, renderTraceHtml } from "@agent-lattice/trace-viewer";
import { chromium } from "playwright-core";
import { syntheticTrace, toJsonl } from "../packages/trace-viewer/scripts/synthetic-trace.mjs";
import { bootstrapMedianInterval, quantile } from "./stats.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const TARGET_MS = 1000;

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const [low, high] = bootstrapMedianInterval(sorted);
  const round = value => Math.round(value * 10) / 10;
  return {
    median: round(quantile(sorted, 0.5)),
    iqr: [round(quantile(sorted, 0.25)), round(quantile(sorted, 0.75))],
    median95: [round(low), round(high)],
  };
}

export async function runTraceViewer() {
  const eventCount = Number(process.env.EVENTS ?? 10_000);
  const rounds = Number(process.env.ROUNDS ?? 12);
  if (!existsSync(CHROMIUM)) {
    console.log(JSON.stringify({ bench: "trace-viewer", skipped: `no Chromium at ${CHROMIUM}` }));
    return;
  }
  const loadBefore = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), "al-bench-viewer-"));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  try {
    const trace = join(dir, "trace.jsonl");
    await writeFile(trace, toJsonl(syntheticTrace({ events: eventCount })));
    const html = join(dir, "trace.html");
    const url = pathToFileURL(html).href;
    const render = [];
    const firstPaint = [];
    const interactive = [];
    const openWall = [];
    for (let round = -1; round < rounds; round++) {
      // The CLI's `view`: read + parse (readContextTrace), render, write.
      const started = performance.now();
      const events = await readTraceFiles([trace]);
      await writeFile(html, renderTraceHtml(events, { title: "bench" }));
      const rendered = performance.now() - started;

      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const opened = performance.now();
      await page.goto(url);
      await page.waitForFunction(() => performance.getEntriesByName("trace-viewer:interactive").length > 0);
      const wall = performance.now() - opened;
      const timings = await page.evaluate(() => ({
        fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
        interactive: performance.getEntriesByName("trace-viewer:interactive")[0]?.startTime,
        rows: document.querySelectorAll(".grid-body .row").length,
        totalEvents: document.querySelector('[data-total="events"]')?.textContent,
      }));
      if (round === -1) {
        // Warm-up round; also checks the page really shows the whole trace, virtualized.
        if (timings.totalEvents !== eventCount.toLocaleString("en-US"))
          throw new Error(`bench: the page shows ${timings.totalEvents} events, expected ${eventCount}`);
        console.error(`trace-viewer bench: ${timings.rows} row elements in the DOM for ${eventCount} events`);
      } else {
        render.push(rendered);
        firstPaint.push(timings.fcp);
        interactive.push(timings.interactive);
        openWall.push(wall);
      }
      await page.close();
    }
    const fcp = summary(firstPaint);
    const result = {
      bench: "trace-viewer",
      events: eventCount,
      jsonlMB: +((await stat(trace)).size / 1e6).toFixed(1),
      htmlMB: +((await stat(html)).size / 1e6).toFixed(1),
      rounds,
      // The machine is shared: its 1-minute load average (cores: os.availableParallelism) before and after.
      loadAverage: [+loadBefore.toFixed(1), +loadavg()[0].toFixed(1)],
      ms: {
        viewCommand: summary(render),
        firstContentfulPaint: fcp,
        interactive: summary(interactive),
        gotoToInteractiveWall: summary(openWall),
      },
      target: `first paint < ${TARGET_MS} ms`,
      verdict:
        fcp.median95[1] < TARGET_MS
          ? "meets target (95% interval of the median first paint < 1000 ms)"
          : fcp.median95[0] >= TARGET_MS
            ? "misses target"
            : "inconclusive: the interval straddles the target; rerun with more rounds",
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runTraceViewer();
