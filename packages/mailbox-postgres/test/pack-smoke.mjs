// Install check 3 (U2), run by packaging/test/install-alone.test.ts: this package installed from the packed
// tarballs beside @agent-lattice/core, with its peers @agent-lattice/team and pg — no workspace, no umbrella, no
// test kit. A lead hands a task through a PostgreSQL mailbox (the user's own pg.Pool) to a member served by
// runTeamWorker on a second mailbox over the same schema, as a second process would. The server is
// AGENT_LATTICE_PG_URL, else a throwaway one from this package's test-server entry (PostgreSQL binaries on PATH).
import assert from "node:assert/strict";
import { createBareAgent } from "@agent-lattice/core";
import { createPostgresMailbox } from "@agent-lattice/mailbox-postgres";
import { findPostgresBinaries, startTemporaryPostgres } from "@agent-lattice/mailbox-postgres/test-server";
import { createTeam, runTeamWorker, teamMember } from "@agent-lattice/team";
import pg from "pg";

const reply = content => ({
  message: { role: "assistant", content },
  stopReason: content.some(block => block.type === "tool_use") ? "tool_use" : "end_turn",
  usage: { input_tokens: 1, output_tokens: 1 },
});
const leadModel = {
  async create(request) {
    const heardBack = request.messages.some(message => message.role === "assistant");
    if (heardBack) return reply([{ type: "text", text: "The researcher reported back. Done." }]);
    return reply([
      {
        type: "tool_use",
        id: "lead_1",
        name: "researcher",
        input: { mode: "handoff", task: "Name a port." },
      },
    ]);
  },
};
let memberCalls = 0;
const memberModel = {
  async create() {
    memberCalls += 1;
    return reply([{ type: "text", text: "The mailbox port." }]);
  },
};
const members = () => [
  teamMember({
    name: "researcher",
    role: "executor",
    agent: createBareAgent({ model: "member", modelClient: memberModel }),
  }),
];

let server;
let url = process.env.AGENT_LATTICE_PG_URL;
if (!url) {
  assert.ok(findPostgresBinaries(), "set AGENT_LATTICE_PG_URL or put PostgreSQL's initdb/pg_ctl on PATH");
  server = await startTemporaryPostgres({ settings: { fsync: "off" } });
  url = server.url;
}
const pool = new pg.Pool({ connectionString: url, max: 4 });
const schema = `smoke_${process.pid}_${Date.now()}`;
const stop = new AbortController();
try {
  const leadMailbox = await createPostgresMailbox({ pool, schema });
  const workerMailbox = await createPostgresMailbox({ connectionString: url, schema });
  const worker = runTeamWorker({
    name: "smoke",
    members: members(),
    mailbox: workerMailbox,
    signal: stop.signal,
  });
  const team = createTeam({
    name: "smoke",
    lead: createBareAgent({ model: "lead", modelClient: leadModel }),
    members: members(),
    mailbox: leadMailbox,
    runner: { execution: "remote" },
  });
  const result = await team.prompt("Ask the researcher to name a port.");
  assert.equal(result.subtype, "success", JSON.stringify(result));
  assert.equal(result.result, "The researcher reported back. Done.");
  assert.equal(memberCalls, 1, "the worker should have run the member once");
  const { rows } = await pool.query(`select count(*)::int as n from "${schema}".messages`);
  assert.ok(rows[0].n > 0, "the PostgreSQL mailbox holds no messages");
  stop.abort();
  await worker;
  await team.close();
  await leadMailbox.close();
  await workerMailbox.close();
  console.log(`smoke ok: a team ran on PostgreSQL (${rows[0].n} messages)`);
} finally {
  stop.abort();
  await pool.end();
  await server?.stop();
}
