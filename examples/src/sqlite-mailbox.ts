/**
 * A team on a durable SQLite mailbox. Messages outlive the process: this example stores a message, "restarts" (a new
 * connection, a new team object on the same file), drains it, and shows every state the mailbox recorded.
 *
 *   pnpm --filter @agent-lattice/examples sqlite-mailbox   offline, against the embedded mock server
 *   MAILBOX_FILE=./team-mailbox.db …                       keep the database file
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createSQLiteMailbox } from "@agent-lattice/mailbox-sqlite";
import { createTeam, teamMember } from "@agent-lattice/team";
import { createBareAgent } from "agent-lattice";
import { textTurn, toolTurn } from "agent-lattice/testing";
import Database from "better-sqlite3";
import { heardBack, resolveTeamProvider } from "./team-provider.js";

export async function runSQLiteMailboxExample(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const provider = await resolveTeamProvider((_role, request) =>
    heardBack(request)
      ? textTurn("Replied.")
      : toolTurn({
          name: "team_reply",
          input: { content: "The changelog for 0.1.0 lists teams and the SQLite mailbox." },
        }),
  );
  const dir = env.MAILBOX_FILE ? undefined : mkdtempSync(join(tmpdir(), "agent-lattice-mailbox-"));
  const file = env.MAILBOX_FILE ?? join(dir!, "team-mailbox.db");
  write(`AgentLattice SQLite mailbox example — provider: ${provider.label}\nmailbox file: ${file}\n\n`);
  const open = () => {
    const database = new Database(file);
    const team = createTeam({
      name: "engineering",
      lead: createBareAgent({
        apiKey: provider.apiKey,
        baseURL: provider.baseURL,
        model: provider.model,
        systemPrompt: "You are the lead.",
      }),
      members: [
        teamMember({
          name: "writer",
          role: "executor",
          agent: createBareAgent({
            apiKey: provider.apiKey,
            baseURL: provider.baseURL,
            model: provider.model,
            systemPrompt: "You are the writer. Answer mailbox messages with team_reply.",
          }),
        }),
      ],
      mailbox: createSQLiteMailbox({ database }),
    });
    return { database, team };
  };
  try {
    // First process: a message is accepted and stored, then the process "ends".
    const first = open();
    const sent = await first.team.send({
      to: "writer",
      content: "Summarise the changelog for 0.1.0 in one sentence.",
    });
    write(`stored ${sent.id} for ${sent.to}: ${sent.status}\n`);
    first.database.close();

    // Next process: the same file; drain what is left.
    const second = open();
    const drained = await second.team.drain();
    write(
      `drained: ${drained.processed} processed, ${drained.completed} completed, stopped: ${drained.stopped}\n`,
    );
    const message = await second.team.mailbox.get(sent.id);
    const history = await second.team.mailbox.transitions(sent.id);
    write(`states: ${history.map(step => step.to).join(" → ")}\n`);
    const [reply] = await second.team.mailbox.inbox(second.team.leadMailboxId);
    write(`reply in ${second.team.leadMailboxId}: ${reply?.content}\n`);
    if (message?.status !== "completed") write(`why: ${message?.outcome?.content}\n`); // a failed item says why
    second.database.close();
    return message?.status === "completed" && reply ? 0 : 1;
  } finally {
    await provider.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runSQLiteMailboxExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
