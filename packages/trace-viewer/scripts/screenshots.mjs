// Screenshots of the trace viewer for the docs, taken from real runs (scripts/demo-trace.mjs: an agent with
// tools and a delegated reviewer; scripts/team-trace.mjs: a team whose members include a nested team with a failing
// writer; both against the mock server, traced to JSONL), rendered by the built package and photographed in
// Chromium — so the pictures show what the code draws. Writes docs/images/trace-viewer*.png.
// Run with `pnpm --filter @agent-lattice/trace-viewer screenshots` (builds first).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { readTraceFiles, renderTraceHtml } from "../dist/index.js";
import { DEMO_REVIEW, recordDemoTrace } from "./demo-trace.mjs";
import { recordTeamTrace } from "./team-trace.mjs";

const images = fileURLToPath(new URL("../../../docs/images/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "al-viewer-shots-"));
try {
  const trace = join(dir, "review-session.jsonl");
  await recordDemoTrace(trace);
  const html = join(dir, "trace.html");
  writeFileSync(
    html,
    renderTraceHtml(await readTraceFiles([trace]), {
      title: "review-session.jsonl",
      files: [".agent-runs/review-session.jsonl"],
    }),
  );
  const teamTrace = join(dir, "team-session.jsonl");
  await recordTeamTrace(teamTrace);
  const teamHtml = join(dir, "team.html");
  writeFileSync(
    teamHtml,
    renderTraceHtml(await readTraceFiles([teamTrace]), {
      title: "team-session.jsonl",
      files: [".agent-runs/team-session.jsonl"],
    }),
  );

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--hide-scrollbars",
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 640 }, colorScheme: "light" });
    await page.goto(pathToFileURL(html).href);
    await page.locator(".grid-body .row").first().waitFor();
    mkdirSync(images, { recursive: true });

    // The tree, the waterfall and tokens, with the reviewer's last turn open: its response and request.
    await page.locator(".grid-body .row", { hasText: DEMO_REVIEW.slice(0, 30) }).click();
    await page.screenshot({ path: join(images, "trace-viewer.png") });

    // Errors: the failing tool call found by the errors filter, its result open.
    await page.click("#show-errors");
    await page.locator('.grid-body .row.has-error[data-kind="tool"]').click();
    await page.screenshot({ path: join(images, "trace-viewer-errors.png") });

    // A team: members under the lead's handoff calls, the nested docs team's failed writer open.
    await page.setViewportSize({ width: 1440, height: 760 });
    await page.goto(pathToFileURL(teamHtml).href);
    await page.locator(".grid-body .row").first().waitFor();
    await page.locator('.grid-body .row[data-kind="member"][data-status="failed"]').click();
    await page.screenshot({ path: join(images, "trace-viewer-team.png") });
    console.log(
      `screenshots: wrote ${join(images, "trace-viewer.png")}, trace-viewer-errors.png and trace-viewer-team.png`,
    );
  } finally {
    await browser.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
