import { describe, expect, it } from "vitest";
import { runNestedTeamsExample } from "../src/nested-teams.js";
import { runSQLiteMailboxExample } from "../src/sqlite-mailbox.js";
import { runTeamsExample } from "../src/teams.js";

const offline = () => {
  for (const key of ["DEEPSEEK_API_KEY", "ANTHROPIC_API_KEY", "AGENT_LATTICE_MODEL"]) delete process.env[key];
};

describe("team examples (offline)", () => {
  it("teams: two handoffs in one turn, both reports back in handoff order, mailbox completed", async () => {
    offline();
    const chunks: string[] = [];
    expect(await runTeamsExample(text => chunks.push(text))).toBe(0);
    const output = chunks.join("");
    expect(output).toContain("lead → researcher");
    expect(output).toContain('receipt: {"status":"accepted","phase":"queued","completion_pending":true');
    expect(output).toContain("[engineering] researcher started");
    expect(output).toContain("[engineering] writer finished (completed)");
    expect(output).toContain("[result: success] Both members reported (2 reports, in handoff order). Done.");
    expect(output).toContain("mailbox: engineering::researcher completed, engineering::writer completed");
  });

  it("nested teams: the engineering team's events nest under the company's", async () => {
    offline();
    const chunks: string[] = [];
    expect(await runNestedTeamsExample(text => chunks.push(text))).toBe(0);
    const output = chunks.join("");
    expect(output).toContain("[company] engineering started");
    expect(output).toContain("  [engineering] backend finished (completed)");
    expect(output).toContain("  [engineering] frontend finished (completed)");
    expect(output).toContain("[result: success] Engineering delivered the notes API and form; shipping.");
  });

  it("sqlite mailbox: a stored message survives a restart and is drained", async () => {
    offline();
    const chunks: string[] = [];
    expect(await runSQLiteMailboxExample(text => chunks.push(text), {})).toBe(0);
    const output = chunks.join("");
    expect(output).toContain("drained: 1 processed, 1 completed, stopped: idle");
    expect(output).toContain("states: pending → processing → completed");
    expect(output).toContain(
      "reply in engineering::lead: The changelog for 0.1.0 lists teams and the SQLite mailbox.",
    );
  });
});
