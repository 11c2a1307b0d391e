// Issue 17, team runs, in real Chromium: a real team (createTeam / teamMember, memory mailbox) against the mock
// server, traced to JSONL by createJsonlContextTracer → `agent-lattice-trace view` → the page opened from disk shows
// the team, the lead, its handoff calls and each member nested under the call that handed it work, with status,
// duration and tokens; a clicked member turn's content; the failing member highlighted with its error code;
// filters by member. Nothing loaded, nothing failed.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import {
  recordTeamTrace,
  TEAM_DOCS_TASK,
  TEAM_FINDINGS,
  TEAM_PROMPT,
  TEAM_RESEARCH_TASK,
  TEAM_REVIEW,
  TEAM_REVIEW_TASK,
  TEAM_USAGE,
} from "../scripts/team-trace.mjs";
import {
  cspViolations,
  describeInChromium,
  launchChromium,
  recordCspViolations,
  treeRows,
  watchPage,
} from "./support/chromium.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const count = (value: number) => value.toLocaleString("en-US");

describeInChromium("the rendered page of a real team run (file://)", () => {
  let dir: string;
  let htmlPath: string;
  let browser: Browser;
  let page: Page;
  let problems: ReturnType<typeof watchPage>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "al-viewer-team-"));
    const trace = join(dir, "team.jsonl");
    await recordTeamTrace(trace);
    htmlPath = join(dir, "trace.html");
    const cli = spawnSync(process.execPath, [CLI, "view", trace, "--out", htmlPath], { encoding: "utf8" });
    expect(cli.status, cli.stderr).toBe(0);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    problems = watchPage(page);
    await recordCspViolations(page);
    await page.goto(pathToFileURL(htmlPath).href);
    await page.locator(".grid-body .row").first().waitFor();
    return async () => {
      expect(problems.pageErrors).toEqual([]);
      expect(problems.consoleErrors).toEqual([]);
      expect(problems.requests).toEqual([pathToFileURL(htmlPath).href]);
      expect(await cspViolations(page)).toEqual([]);
      await page.close();
    };
  });

  it("shows the team, the lead, its handoff calls and each member nested under the call that handed it work", async () => {
    const rows = await treeRows(page);
    const find = (badge: string, label: string) => {
      const index = rows.findIndex(row => row.badge === badge && row.label.startsWith(label));
      expect(index, `${badge} ${label}`).toBeGreaterThanOrEqual(0);
      return index;
    };
    expect(rows[0]).toMatchObject({ depth: 0, badge: "team", label: `engineering — ${TEAM_PROMPT}` });
    expect(rows[1]).toMatchObject({ depth: 1, badge: "lead", label: `engineering lead — ${TEAM_PROMPT}` });

    // Each handoff call of the lead's first turn, its member right under it, the member's run under that.
    for (const [name, task] of [
      ["researcher", TEAM_RESEARCH_TASK],
      ["docs", TEAM_DOCS_TASK],
    ] as const) {
      const call = find("delegate", `${name} {"mode":"handoff"`);
      expect(rows[call]!.depth).toBe(3); // team → lead → turn 1 → call
      expect(rows[call + 1]).toMatchObject({
        depth: 4,
        badge: "handoff",
        label: `${name} · completed — ${task}`,
      });
      expect(rows[call + 2]).toMatchObject({ depth: 5, label: `${name} — ${task}` });
    }
    // The ask: the reviewer under the call of the lead's second turn.
    const ask = find("delegate", 'reviewer {"mode":"ask"');
    expect(rows[ask + 1]).toMatchObject({
      depth: rows[ask]!.depth + 1,
      badge: "ask",
      label: `reviewer · completed — ${TEAM_REVIEW_TASK}`,
    });
    // The nested docs team: its lead, and the writer under the docs lead's call.
    const docsTeam = find("team", "docs — ");
    expect(rows[docsTeam + 1]).toMatchObject({ depth: rows[docsTeam]!.depth + 1, badge: "lead" });
    const writerCall = find("delegate", 'writer {"mode":"handoff"');
    expect(rows[writerCall + 1]).toMatchObject({ depth: rows[writerCall]!.depth + 1, badge: "handoff" });
    expect(rows[writerCall + 1]!.label).toMatch(/^writer · failed — /);

    // Members show duration and the tokens their runs spent.
    const researcher = rows[find("handoff", "researcher")]!;
    expect(researcher.duration).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    expect(researcher.tokens).toEqual([
      count(TEAM_USAGE.researcher1.input_tokens + TEAM_USAGE.researcher2.input_tokens),
      count(TEAM_USAGE.researcher1.output_tokens + TEAM_USAGE.researcher2.output_tokens),
      "0",
      "0",
    ]);
    expect(rows[find("ask", "reviewer")]!.tokens).toEqual([
      count(TEAM_USAGE.reviewer1.input_tokens),
      count(TEAM_USAGE.reviewer1.output_tokens),
      "0",
      "0",
    ]);
    // The team's and the lead's rows show what the whole team spent, members included (issue 26).
    const all = Object.values(TEAM_USAGE);
    const everyone = [
      count(all.reduce((total, usage) => total + usage.input_tokens, 0)),
      count(all.reduce((total, usage) => total + usage.output_tokens, 0)),
      count(all.reduce((total, usage) => total + usage.cache_creation_input_tokens, 0)),
      count(all.reduce((total, usage) => total + usage.cache_read_input_tokens, 0)),
    ];
    expect(rows[0]!.tokens).toEqual(everyone);
    expect(rows[1]!.tokens).toEqual(everyone);
    expect(await page.locator('[data-total="errors"]').textContent()).toBe("1"); // the writer's 529, once
    // The member's bar on the waterfall spans its run's.
    const member = find("handoff", "researcher");
    const bar = async (index: number) =>
      (await page.locator(`.grid-body .row[data-index="${index}"] .bar`).boundingBox())!;
    const [memberBar, runBar] = [await bar(member), await bar(member + 1)];
    expect(runBar.x).toBeGreaterThanOrEqual(memberBar.x - 1);
    expect(runBar.x + runBar.width).toBeLessThanOrEqual(memberBar.x + memberBar.width + 1);
  });

  it("highlights the failing member like an error, with its code, and finds it by the code", async () => {
    const writer = page.locator('.grid-body .row[data-kind="member"][data-status="failed"]');
    expect(await writer.count()).toBe(1);
    expect(await writer.getAttribute("class")).toContain("has-error");
    expect(await writer.locator(".error-code").textContent()).toBe("handoff failed overloaded_error");
    expect(await writer.locator(".label").textContent()).toMatch(/^writer · failed/);
    const color = await writer.locator(".error-code").evaluate(element => getComputedStyle(element).color);
    expect(color).toBe("rgb(198, 40, 40)"); // --error
    // The completed members are not errors.
    expect(await page.locator('.row[data-kind="member"][data-status="completed"].has-error').count()).toBe(0);

    await writer.click();
    const details = page.locator(".details");
    await expect.poll(() => details.locator(".error-box").textContent()).toContain("overloaded_error");
    expect(await details.locator(".error-box").textContent()).toContain("The model provider answered 529");
    const facts = await details.locator("dd").allTextContents();
    expect(facts).toEqual(expect.arrayContaining(["writer", "docs", "failed", "handoff", "docs::writer"]));

    await page.click("#show-errors");
    const matching = await page
      .locator(".grid-body .row:not(.context)")
      .evaluateAll(rows =>
        rows.map(row => `${row.getAttribute("data-kind")} ${row.querySelector(".error-code")?.textContent}`),
      );
    expect(matching).toContain("member handoff failed overloaded_error");
    await page.click("#show-errors");
    await page.fill("#filter-text", "overloaded_error");
    await expect
      .poll(() => page.locator('.grid-body .row[data-kind="member"]:not(.context) .label').allTextContents())
      .toEqual([expect.stringMatching(/^writer · failed/)]);
  });

  it("a clicked member turn shows its response and request; a clicked member its task, outcome and run", async () => {
    await page.locator(".grid-body .row", { hasText: TEAM_FINDINGS.slice(0, 30) }).click();
    const details = page.locator(".details");
    await expect.poll(() => details.locator("h2").textContent()).toContain("turn 2");
    expect(await details.locator(".response").textContent()).toContain(TEAM_FINDINGS);
    const request = await details.locator(".request").textContent();
    expect(request).toContain("You research the codebase"); // the member's system prompt as sent
    expect(request).toContain(TEAM_RESEARCH_TASK); // the handed-off task
    expect(await details.locator("dd").allTextContents()).toContain("researcher"); // the agent, by its member name

    await page.locator('.grid-body .row[data-kind="member"]', { hasText: "reviewer" }).click();
    await expect.poll(() => details.locator("h2").textContent()).toMatch(/^reviewer · completed/);
    const text = await details.textContent();
    expect(text).toContain(TEAM_REVIEW_TASK); // the task
    expect(text).toContain(TEAM_REVIEW); // the outcome
    expect(await details.locator("table.usage td").allTextContents()).toEqual([
      count(TEAM_USAGE.reviewer1.input_tokens),
      count(TEAM_USAGE.reviewer1.output_tokens),
      "0",
      "0",
    ]);
    await details.locator("button.link", { hasText: `reviewer — ${TEAM_REVIEW_TASK}` }).click();
    await expect.poll(() => page.locator(".grid-body .row.selected").getAttribute("data-kind")).toBe("run");
  });

  it("filters by member: its work item and run, with the team, lead and call as context", async () => {
    const options = await page.locator("#filter-agent option").allTextContents();
    expect(options).toEqual(
      expect.arrayContaining(["engineering", "engineering lead", "researcher", "reviewer", "docs", "writer"]),
    );
    await page.selectOption("#filter-agent", "researcher");
    const shown = async (selector: string) =>
      page
        .locator(`.grid-body .row${selector}`)
        .evaluateAll(rows =>
          rows.map(
            row => `${row.querySelector(".badge")?.textContent} ${row.querySelector(".label")?.textContent}`,
          ),
        );
    expect((await shown(":not(.context)")).map(row => row.split(" ").slice(0, 2).join(" "))).toEqual([
      "handoff researcher",
      "agent researcher",
      "llm turn",
      "tool grep",
      "llm turn",
    ]);
    expect((await shown(".context")).map(row => row.split(" ")[0])).toEqual([
      "team",
      "lead",
      "llm",
      "delegate",
    ]);
    await page.selectOption("#filter-type", "member");
    await page.selectOption("#filter-agent", "");
    expect(await page.locator(".grid-body .row:not(.context)").count()).toBe(4); // researcher, docs, writer, reviewer
  });
});
