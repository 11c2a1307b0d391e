// Issue 17, security: trace content is untrusted (model output, tool results, even agent names). A real run whose
// prompt, model text, tool input, tool result, agent name and error carry HTML/script payloads renders them as
// inert text: asserted through the DOM, a global flag each payload would set, page errors, console, requests and
// CSP violations — with the CSP, and again with the CSP removed (text rendering alone must hold), plus a control
// showing the payload does fire when parsed as HTML, so the flag check can fail.
import { spawnSync } from "node:child_process";
import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createBareAgent, createJsonlContextTracer, tool } from "@agent-lattice/core";
import { startMockAnthropicServer, textTurn, toolTurn } from "@agent-lattice/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  cspViolations,
  describeInChromium,
  launchChromium,
  recordCspViolations,
  watchPage,
} from "./support/chromium.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const FLAG = "globalThis.__pwned=(globalThis.__pwned||0)+1";
const IMG = `<img src=x onerror="${FLAG}">`;
const SCRIPT = `</script><script>${FLAG}</script>`;
const COMMENT = "<!-- <script>";
const SEPARATORS = "\u2028\u2029";
const PAYLOAD = `${IMG} ${SCRIPT} ${COMMENT} ${SEPARATORS}`;

/** A run against the mock server with the payload everywhere content can come from. */
async function hostileTrace(path: string): Promise<void> {
  const server = await startMockAnthropicServer({
    script: [
      toolTurn(
        { name: "fetch_page", input: { url: PAYLOAD }, id: "toolu_payload" },
        { text: `Model says ${PAYLOAD}` },
      ),
      textTurn(`Done: ${SCRIPT}`),
    ],
  });
  const fetchPage = tool("fetch_page", "Fetches a page.", z.object({ url: z.string() }), async () => ({
    content: `<html><body>${PAYLOAD}</body></html>`,
    isError: true,
  }));
  const agent = createBareAgent({
    apiKey: "k",
    baseURL: server.url,
    model: "m",
    name: IMG,
    tools: [fetchPage],
  });
  const tracer = createJsonlContextTracer({ path });
  try {
    await agent.prompt(`Summarise ${PAYLOAD}`, { tracer });
  } finally {
    await tracer.close!();
    await agent.close();
    await server.close();
  }
  // Fields no agent run fills with text of its choosing, written as a hostile file could: an unknown event type,
  // a run id and an error code carrying markup.
  const envelope = {
    v: 1,
    session_id: SCRIPT,
    run_id: `${IMG}run`,
    source: SCRIPT,
    time: new Date().toISOString(),
  };
  await appendFile(
    path,
    [
      { ...envelope, seq: 0, type: IMG, data: { subtype: SCRIPT, note: PAYLOAD } },
      { ...envelope, seq: 1, type: "error", data: { error: { name: IMG, message: PAYLOAD, code: SCRIPT } } },
    ]
      .map(event => `${JSON.stringify(event)}\n`)
      .join(""),
  );
}

describeInChromium("hostile trace content renders as inert text", () => {
  let dir: string;
  let html: string;
  let htmlPath: string;
  let browser: Browser;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "al-viewer-xss-"));
    const trace = join(dir, "hostile.jsonl");
    await hostileTrace(trace);
    htmlPath = join(dir, "hostile.html");
    const cli = spawnSync(process.execPath, [CLI, "view", trace, "--out", htmlPath, "--title", PAYLOAD], {
      encoding: "utf8",
    });
    expect(cli.status, cli.stderr).toBe(0);
    html = await readFile(htmlPath, "utf8");
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function open(path: string): Promise<{ page: Page; problems: ReturnType<typeof watchPage> }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems = watchPage(page);
    await recordCspViolations(page);
    await page.goto(pathToFileURL(path).href);
    await page.locator(".grid-body .row").first().waitFor();
    return { page, problems };
  }

  /** Everything a payload could have done, checked after the page had time to load images and run handlers. */
  async function expectInert(page: Page, problems: ReturnType<typeof watchPage>, path: string) {
    // Show every detail view, so every rendering path meets the payload (raw events included).
    for (const row of await page.locator(".grid-body .row").all()) {
      await row.click();
      const raw = page.locator("details.raw");
      await raw.evaluate(element => {
        (element as HTMLDetailsElement).open = true;
      });
    }
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(3); // two data elements and the viewer, nothing injected
    expect(problems.pageErrors).toEqual([]);
    expect(problems.requests).toEqual([pathToFileURL(path).href]); // src=x was never requested
    expect(problems.consoleErrors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]); // nothing even tried to run or load
  }

  it("with the page's CSP: the payloads appear literally in the tree, the details and the title", async () => {
    const { page, problems } = await open(htmlPath);
    expect(await page.title()).toBe(PAYLOAD);
    expect(await page.locator("h1").textContent()).toBe(PAYLOAD);
    const labels = await page.locator(".grid-body .label").allTextContents();
    expect(labels[0]).toContain(`${IMG} — Summarise <img src=x onerror=`); // the agent's name and prompt
    expect(labels.join("\n")).toContain(
      `fetch_page {"url":"<img src=x onerror=\\"${FLAG}\\"> </script><script>`,
    );
    expect(labels.join("\n")).toContain(`${IMG} ${SCRIPT}`); // the unknown event type and its subtype
    expect(await page.locator(".grid-body .error-code").allTextContents()).toContain(`${IMG} ${SCRIPT}`);
    await page.locator(".grid-body .row", { hasText: "Model says" }).click();
    expect(await page.locator(".details .response").textContent()).toContain(`Model says ${PAYLOAD}`);
    await page.locator('.grid-body .row[data-kind="tool"]').click();
    expect(await page.locator(".details").textContent()).toContain(`<html><body>${PAYLOAD}</body></html>`);
    expect(await page.locator("#filter-agent option").allTextContents()).toContain(IMG);
    await expectInert(page, problems, htmlPath);
    await page.close();
  });

  it("without the CSP too: the text rendering and the embedding hold on their own", async () => {
    const stripped = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "");
    expect(stripped).not.toContain("Content-Security-Policy");
    const path = join(dir, "no-csp.html");
    await writeFile(path, stripped);
    const { page, problems } = await open(path);
    expect(await page.locator(".grid-body .label").first().textContent()).toContain(IMG);
    await expectInert(page, problems, path);

    // Control: the same payload parsed as HTML does fire, so the checks above can fail.
    await page.evaluate(payload => document.body.insertAdjacentHTML("beforeend", payload), IMG);
    await expect.poll(() => page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBe(1);
    await page.close();
  });

  it("Trusted Types make HTML sinks throw on the real page", async () => {
    const { page } = await open(htmlPath);
    const outcome = await page.evaluate(payload => {
      try {
        document.body.insertAdjacentHTML("beforeend", payload);
        return "parsed";
      } catch (error) {
        return (error as Error).name;
      }
    }, IMG);
    expect(outcome).toBe("TypeError");
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
  });
});
