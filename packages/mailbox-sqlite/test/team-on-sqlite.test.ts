// Spec "For durable local storage, pass a SQLite-like database" (T12 with T1–T3): the snippet runs against the mock
// server, and a handoff through a team on a file SQLite mailbox leaves the same states as the memory mailbox.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBareAgent, type SDKMessage } from "@agent-lattice/core";
import { createTeam, teamMember } from "@agent-lattice/team";
import { startMockAnthropicServer, textTurn, toolUse, turn } from "@agent-lattice/testing";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createSQLiteMailbox } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "team-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a team on a SQLite mailbox (spec snippet)", () => {
  it("the snippet: createSQLiteMailbox({ database: new Database(file) }) with a lead and no members", async () => {
    const server = await startMockAnthropicServer({
      script: [textTurn("Nothing to delegate; here is the plan.")],
    });
    try {
      const mailbox = createSQLiteMailbox({ database: new Database(join(dir, "team-mailbox.db")) });
      const team = createTeam({
        name: "engineering",
        lead: createBareAgent({ apiKey: "test-key", baseURL: server.url, model: "deepseek-v4-flash" }),
        members: [],
        mailbox,
      });
      const result = await team.prompt("Plan the release.");
      expect(result).toMatchObject({ subtype: "success", result: "Nothing to delegate; here is the plan." });
      expect(team.mailbox).toBe(mailbox);
    } finally {
      await server.close();
    }
  });

  it("a handoff is stored, claimed, completed and replied in the database file; a new connection sees it all", async () => {
    const server = await startMockAnthropicServer({
      respond: request =>
        request.body.model === "researcher"
          ? textTurn("Findings: the loop is one generator.")
          : (request.body.messages as unknown[]).length === 1
            ? turn([toolUse("researcher", { mode: "handoff", task: "Inspect the loop." })])
            : textTurn("Summary sent."),
    });
    try {
      const file = join(dir, "handoff.db");
      const agent = (model: string) => createBareAgent({ apiKey: "test-key", baseURL: server.url, model });
      const team = createTeam({
        name: "engineering",
        lead: agent("lead"),
        members: [teamMember({ name: "researcher", role: "executor", agent: agent("researcher") })],
        mailbox: createSQLiteMailbox({ database: new Database(file) }),
      });
      const events: SDKMessage[] = [];
      for await (const event of team.query("Ask the researcher to inspect the loop.")) events.push(event);
      expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Summary sent." });
      const subtypes = events.flatMap(event =>
        event.type === "team_message" ? [`${event.subtype}:${event.message.kind}`] : [],
      );
      expect(subtypes).toEqual([
        "sent:delegation",
        "claimed:delegation",
        "completed:delegation",
        "sent:reply",
      ]);
      const user = events.find(event => event.type === "user");
      const receipt = JSON.parse(String(user?.type === "user" && user.message.content[0]!.content));
      expect(receipt).toMatchObject({ status: "accepted", phase: "queued", completion_pending: true });

      const reader = createSQLiteMailbox({ database: new Database(file) });
      expect(await reader.get(receipt.message_id)).toMatchObject({
        status: "completed",
        to: "engineering::researcher",
        workItemId: receipt.work_item_id,
        threadId: receipt.thread_id,
      });
      const thread = await reader.thread(receipt.thread_id);
      expect(thread.map(message => [message.kind, message.status])).toEqual([
        ["delegation", "completed"],
        ["reply", "completed"],
      ]);
      expect(thread[1]!.content).toBe("Findings: the loop is one generator.");
    } finally {
      await server.close();
    }
  });
});
