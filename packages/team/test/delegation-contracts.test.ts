// D4 on the team delegate path, T6 workspace grants, observe (T2).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBuiltinTools } from "@agent-lattice/builtin-tools";
import { tool } from "@agent-lattice/core";
import { textTurn, toolTurn, toolUse, turn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { createTeam, teamMember } from "../src/index.js";
import { collect, lastUserText, mockAgent, requestsFor, teamMock } from "./helpers.js";

const verdict = tool(
  "verdict",
  "Deliver the verdict.",
  z.object({ approved: z.boolean(), reason: z.string() }),
  async input => ({ content: "verdict delivered", endTurn: true, structuredResult: input }),
);

describe("D4 on the team delegate path", () => {
  it("neither side declares a schema: the member's structuredResult JSON reaches the lead (handoff and ask)", async () => {
    const server = await teamMock({
      lead: [
        turn([toolUse("reviewer", { mode: "handoff", task: "Review A." })]),
        toolTurn({ name: "reviewer", input: { mode: "ask", task: "Review B." } }),
        textTurn("both reviewed"),
      ],
      reviewer: [
        toolTurn({ name: "verdict", input: { approved: true, reason: "A is fine" } }),
        toolTurn({ name: "verdict", input: { approved: false, reason: "B breaks the API" } }),
      ],
    });
    const team = createTeam({
      name: "review",
      lead: mockAgent(server, "lead"),
      members: [
        teamMember({
          name: "reviewer",
          role: "executor",
          agent: mockAgent(server, "reviewer", { tools: [verdict] }),
        }),
      ],
    });
    await team.prompt("Review A and B.");
    const [, second, third] = requestsFor(server, "lead");
    expect(lastUserText(second!)).toContain('{"approved":true,"reason":"A is fine"}');
    expect(lastUserText(third!)).toBe('{"approved":false,"reason":"B breaks the API"}');
  });

  it("the member declares an outputSchema: the report is its validated JSON; an invalid end is child_output_invalid", async () => {
    const schema = z.object({ score: z.number() });
    const server = await teamMock({
      lead: [
        turn([
          toolUse("scorer", { mode: "handoff", task: "Score it." }),
          toolUse("scorer", { mode: "handoff", task: "Score again." }),
        ]),
        textTurn("scored"),
      ],
      scorer: [toolTurn({ name: "submit_output", input: { score: 7 } }), textTurn("I forgot to submit")],
    });
    const team = createTeam({
      name: "review",
      lead: mockAgent(server, "lead"),
      members: [
        teamMember({
          name: "scorer",
          role: "executor",
          agent: mockAgent(server, "scorer", { outputSchema: schema }),
        }),
      ],
    });
    await team.prompt("Score twice.");
    const told = lastUserText(requestsFor(server, "lead")[1]!);
    expect(told).toContain('"status":"completed"');
    expect(told).toContain('{"score":7}');
    expect(told).toMatch(
      /"status":"failed".*\nchild_output_invalid: the child run ended with error_missing_output/,
    );
    // The member tool advertises the contract, inherited from the member.
    expect(team.tools[0]!.description).toContain("validated structured output as JSON");
  });
});

describe("workspace grants through the mailbox (T6)", () => {
  it("accepts only covered grants, records them in mailbox metadata and the task, and the built-in Write enforces them", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "team-grants-")));
    const shared = join(base, "txt-notebook-app");
    // The shared project exists (the built-in writer creates directories only inside a writable root).
    mkdirSync(shared);
    const backendRoot = join(shared, "backend");
    const own = join(base, "backend-private");
    const server = await teamMock({
      lead: [
        turn([
          toolUse("backend", {
            mode: "handoff",
            task: "Implement the API in the shared repo.",
            workspaceGrants: [{ root: backendRoot, access: ["write"], reason: "backend code" }],
          }),
          toolUse("backend", {
            mode: "handoff",
            task: "Also edit /etc.",
            workspaceGrants: [{ root: "/etc", access: ["write"] }],
          }),
        ]),
        textTurn("done"),
      ],
      backend: [
        turn([
          toolUse("Write", { file_path: join(backendRoot, "api.ts"), content: "export const api = 1;\n" }),
          toolUse("Write", { file_path: join(shared, "frontend", "ui.ts"), content: "nope\n" }),
        ]),
        textTurn("API written; the frontend write was denied."),
      ],
    });
    const backend = mockAgent(server, "backend", {
      tools: createBuiltinTools({ cwd: own, allowedDirectories: [own] }),
    });
    const team = createTeam({
      name: "engineering",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "backend", role: "executor", agent: backend })],
    });
    const events = await collect(
      team.query("Ask backend to implement the API in the shared repo.", {
        permissions: {
          workspaceGrants: [{ root: shared, access: ["write"], reason: "Project shared workspace" }],
        },
      }),
    );
    expect(events.at(-1)).toMatchObject({ subtype: "success" });

    // The uncovered grant was refused before anything was queued.
    const results = events.find(event => event.type === "user");
    const second = results?.type === "user" ? String(results.message.content[1]!.content) : "";
    expect(JSON.parse(second)).toMatchObject({ code: "grant_not_covered", rejectedRoots: ["/etc"] });
    const queued = await team.mailbox.inbox("engineering::backend", { status: "all" });
    expect(queued).toHaveLength(1);
    // Recorded in the mailbox metadata …
    expect(queued[0]!.metadata.workspaceGrants).toEqual([
      { root: backendRoot, access: ["write"], reason: "backend code" },
    ]);
    // … in the member's task …
    expect(lastUserText(requestsFor(server, "backend")[0]!)).toContain(`- ${backendRoot} (backend code)`);
    // … and enforced by the built-in Write tool: inside the grant written, outside it denied.
    expect(readFileSync(join(backendRoot, "api.ts"), "utf8")).toBe("export const api = 1;\n");
    const toolResults = lastUserText(requestsFor(server, "backend")[1]!);
    expect(toolResults).toContain("permission_denied");
    expect(toolResults).toContain(join(shared, "frontend", "ui.ts"));
  });
});

describe("observe (T2)", () => {
  it("is unsupported without a host handler, and served by runner.observe when given", async () => {
    const server = await teamMock({
      lead: [toolTurn({ name: "watcher", input: { mode: "observe", task: "Watch." } }), textTurn("ok")],
      lead2: [toolTurn({ name: "watcher", input: { mode: "observe", task: "Watch." } }), textTurn("ok")],
    });
    const plain = createTeam({
      name: "a",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "watcher", role: "executor", agent: mockAgent(server, "watcher") })],
    });
    await plain.prompt("observe");
    expect(lastUserText(requestsFor(server, "lead")[1]!)).toMatch(/^unsupported_mode: mode "observe"/);

    const observed: string[] = [];
    const hosted = createTeam({
      name: "b",
      lead: mockAgent(server, "lead2"),
      members: [teamMember({ name: "watcher", role: "executor", agent: mockAgent(server, "watcher") })],
      runner: {
        observe: request => {
          observed.push(request.tool);
          return { content: "watcher is idle" };
        },
      },
    });
    await hosted.prompt("observe");
    expect(observed).toEqual(["watcher"]);
    expect(lastUserText(requestsFor(server, "lead2")[1]!)).toBe("watcher is idle");
    expect(requestsFor(server, "watcher")).toHaveLength(0);
  });
});
