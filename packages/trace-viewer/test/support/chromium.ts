import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { describe } from "vitest";

/** Debian's chromium (no browser download): .ci/run installs it. CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const missing = existsSync(CHROMIUM_PATH)
  ? undefined
  : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`;
// CI has Chromium: there a missing browser is a failure, not a quiet skip.
if (missing && process.env.CI === "true") throw new Error(`Browser tests need Chromium in CI: ${missing}.`);
if (missing) console.warn(`trace-viewer browser tests skipped: ${missing}`);

/** A describe block that runs in real Chromium, or is skipped saying why where none is installed. */
export function describeInChromium(name: string, body: () => void): void {
  if (missing) describe.skip(`${name} (skipped: ${missing})`, body);
  else describe(name, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * What a page did that it should not have: uncaught errors, console errors, CSP violations, and every request
 * other than the page itself. Attached before navigation.
 */
export function watchPage(page: Page) {
  const problems = { pageErrors: [] as string[], consoleErrors: [] as string[], requests: [] as string[] };
  page.on("pageerror", error => problems.pageErrors.push(error.message));
  page.on("console", message => {
    if (message.type() === "error" || message.type() === "warning")
      problems.consoleErrors.push(message.text());
  });
  page.on("request", request => problems.requests.push(request.url()));
  return problems;
}

/** CSP violations the page reported (collected by a listener the test installs before the page's script runs). */
export async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as { __violations?: string[] }).__violations ?? []);
}

/** Installs the CSP violation recorder; call before goto. */
export async function recordCspViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const violations: string[] = [];
    (globalThis as { __violations?: string[] }).__violations = violations;
    document.addEventListener("securitypolicyviolation", event =>
      violations.push(`${event.violatedDirective}: ${event.blockedURI} ${event.sample}`),
    );
  });
}

/** The text of the rendered tree rows, as shown (indentation as depth). */
export async function treeRows(page: Page) {
  return page.locator(".grid-body .row").evaluateAll(rows =>
    rows.map(row => ({
      depth: Number(row.getAttribute("aria-level")) - 1,
      kind: row.getAttribute("data-kind"),
      badge: row.querySelector(".badge")?.textContent ?? "",
      label: row.querySelector(".label")?.textContent ?? "",
      error: row.querySelector(".error-code")?.textContent ?? undefined,
      duration: row.querySelector(".duration")?.textContent ?? "",
      tokens: [...row.querySelectorAll(".tokens")].map(cell => cell.textContent),
    })),
  );
}
