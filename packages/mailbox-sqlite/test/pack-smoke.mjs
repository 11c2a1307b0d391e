// Install checks 2 and 3 (U2), run by packaging/test/install-alone.test.ts: this package installed from the packed
// tarballs beside @agent-lattice/core with its peers @agent-lattice/team and better-sqlite3, and nothing else —
// no workspace, no umbrella, no test kit. A lead hands work to a member through a SQLite mailbox in a file.
// Models are hand-written ModelClients; the lead finds the member's tool among the tools it is offered and fills
// its input from the tool's JSON Schema, so the program does not depend on the tool's exact name or fields.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBareAgent } from "@agent-lattice/core";
import { createSQLiteMailbox } from "@agent-lattice/mailbox-sqlite";
import { createTeam, teamMember } from "@agent-lattice/team";
import Database from "better-sqlite3";

const reply = content => ({
  message: { role: "assistant", content },
  stopReason: content.some(block => block.type === "tool_use") ? "tool_use" : "end_turn",
  usage: { input_tokens: 1, output_tokens: 1 },
});

/** A value for each required property of a JSON Schema object, preferring a handoff when a mode is asked for. */
function inputFor(schema) {
  const input = {};
  for (const key of schema.required ?? []) {
    const property = schema.properties?.[key] ?? {};
    if (Array.isArray(property.enum))
      input[key] = property.enum.includes("handoff") ? "handoff" : property.enum[0];
    else if (property.type === "number" || property.type === "integer") input[key] = 1;
    else if (property.type === "boolean") input[key] = false;
    else if (property.type === "array") input[key] = [];
    else if (property.type === "object") input[key] = {};
    else input[key] = "Write one line about SQLite.";
  }
  return input;
}

let leadCalls = 0;
const leadModel = {
  async create(request) {
    leadCalls += 1;
    const memberTool = request.tools.find(tool => tool.name.includes("researcher"));
    if (leadCalls === 1) {
      assert.ok(memberTool, `the lead was offered no tool for the member: ${request.tools.map(t => t.name)}`);
      return reply([
        { type: "tool_use", id: "lead_1", name: memberTool.name, input: inputFor(memberTool.input_schema) },
      ]);
    }
    return reply([{ type: "text", text: "The team is done." }]);
  },
};
let memberCalls = 0;
const memberModel = {
  async create() {
    memberCalls += 1;
    return reply([{ type: "text", text: "SQLite keeps the whole database in one file." }]);
  },
};

const dir = mkdtempSync(join(tmpdir(), "smoke-team-sqlite-"));
try {
  const database = new Database(join(dir, "team-mailbox.db"));
  const team = createTeam({
    name: "smoke",
    lead: createBareAgent({ model: "lead", modelClient: leadModel }),
    members: [
      teamMember({
        name: "researcher",
        role: "executor",
        focus: "One-line facts",
        agent: createBareAgent({ model: "member", modelClient: memberModel }),
      }),
    ],
    mailbox: createSQLiteMailbox({ database }),
  });
  const result = await team.prompt("Ask the researcher for one line about SQLite.");
  assert.equal(result.subtype, "success", JSON.stringify(result));
  assert.ok(memberCalls >= 1, "the member never ran");
  const tables = database.prepare("select name from sqlite_master where type = 'table'").all();
  const rows = tables.reduce(
    (sum, { name }) => sum + database.prepare(`select count(*) as n from "${name}"`).get().n,
    0,
  );
  assert.ok(rows > 0, `the SQLite mailbox holds no rows (tables: ${tables.map(t => t.name)})`);
  await team.close?.();
  database.close();
  console.log(`smoke ok: a team ran on SQLite (${tables.length} tables, ${rows} rows)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
