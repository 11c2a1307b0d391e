/**
 * A team across processes on PostgreSQL: the lead's runner has execution "remote", so it only stores its handoffs and
 * waits; a worker (runTeamWorker) on its own connection runs the members and replies. Here both live in this one
 * program for brevity — in production the worker block is a separate process, on as many machines as you like.
 *
 *   pnpm --filter @agent-lattice/examples postgres-mailbox     offline: mock model, throwaway PostgreSQL server
 *   AGENT_LATTICE_PG_URL=postgres://… …                       use your server (a fresh schema, dropped afterwards)
 *
 * Without AGENT_LATTICE_PG_URL and without PostgreSQL's binaries (initdb) on this machine it says so and stops.
 */
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { findPostgresBinaries, startTemporaryPostgres } from "@agent-lattice/mailbox-postgres/test-server";
import { createBareAgent, createPostgresMailbox, createTeam, runTeamWorker, teamMember } from "agent-lattice";
import { textTurn, toolUse, turn } from "agent-lattice/testing";
import pg from "pg";
import { heardBack, lastUserText, resolveTeamProvider } from "./team-provider.js";

export async function runPostgresMailboxExample(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let url = env.AGENT_LATTICE_PG_URL;
  let server: Awaited<ReturnType<typeof startTemporaryPostgres>> | undefined;
  if (!url) {
    if (!findPostgresBinaries()) {
      write(
        "PostgreSQL mailbox example skipped: set AGENT_LATTICE_PG_URL, or install PostgreSQL (initdb) for a throwaway server.\n",
      );
      return 0;
    }
    server = await startTemporaryPostgres();
    url = server.url;
  }
  const provider = await resolveTeamProvider((role, request) => {
    if (role === "lead") {
      if (!heardBack(request)) {
        return turn([
          toolUse("researcher", { mode: "handoff", task: "Name the core parts of the SDK." }),
          toolUse("writer", { mode: "handoff", task: "Write a one-line release note for teams." }),
        ]);
      }
      const reports = lastUserText(request).match(/\[team_report\]/g) ?? [];
      return textTurn(`Both workers reported (${reports.length} reports). Done.`);
    }
    if (role === "researcher") return textTurn("One agent loop, ports, adapters.", { delayMs: 50 });
    return textTurn("Teams now run across machines on PostgreSQL.");
  });
  const schema = `example_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const agent = (role: string, job: string) =>
    createBareAgent({
      apiKey: provider.apiKey,
      baseURL: provider.baseURL,
      model: provider.model,
      systemPrompt: `You are the ${role}. ${job}`,
      maxTurns: 6,
    });
  // Shared by both sides (in a real deployment: one module imported by the lead's process and the workers).
  const members = () => [
    teamMember({
      name: "researcher",
      role: "executor",
      agent: agent("researcher", "Report concise findings."),
    }),
    teamMember({ name: "writer", role: "executor", agent: agent("writer", "Write short release notes.") }),
  ];
  write(`AgentLattice PostgreSQL mailbox example — provider: ${provider.label}\nschema: ${schema}\n\n`);

  const leadMailbox = await createPostgresMailbox({ connectionString: url, schema });
  const workerMailbox = await createPostgresMailbox({ connectionString: url, schema });
  const stop = new AbortController();
  try {
    // The worker: serves the members' mailboxes until stopped; woken by LISTEN/NOTIFY when work arrives.
    const worker = runTeamWorker({
      name: "engineering",
      members: members(),
      mailbox: workerMailbox,
      signal: stop.signal,
      owner: "worker-1",
      onEvent: event => {
        if (event.type === "team_agent")
          write(`[worker-1] ${event.agent} ${event.subtype}${event.status ? ` (${event.status})` : ""}\n`);
      },
    });

    // The lead: members run elsewhere.
    const team = createTeam({
      name: "engineering",
      lead: agent("lead", "You lead engineering work. Hand research to researcher and writing to writer."),
      members: members(),
      mailbox: leadMailbox,
      runner: { execution: "remote" },
    });
    let final = "";
    for await (const event of team.query("Get the SDK's core parts researched and a release note written.")) {
      if (event.type === "team_message")
        write(`[lead] ${event.subtype} ${event.message.kind} → ${event.message.to}\n`);
      // A failed run's result is its error's message: print it with the subtype, so a failure says why.
      if (event.type === "result")
        final = event.is_error ? `${event.subtype}: ${event.result}` : event.result;
    }
    write(`\n${final}\n`);
    stop.abort();
    const done = await worker;
    write(`worker-1 stopped: ${done.completed} completed, ${done.released} released\n`);
    const [first] = await leadMailbox.inbox("engineering::researcher", { status: "all" });
    const history = first ? await leadMailbox.transitions(first.id) : [];
    write(`states: ${history.map(step => `${step.to}${step.owner ? `@${step.owner}` : ""}`).join(" → ")}\n`);
    return final.startsWith("Both workers reported (2") || !provider.label.startsWith("offline") ? 0 : 1;
  } finally {
    stop.abort();
    await leadMailbox.close();
    await workerMailbox.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    await provider.close();
    await server?.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runPostgresMailboxExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
