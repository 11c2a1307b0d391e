/**
 * Team mailbox collaboration: a lead hands work off to two members in one turn; both run at once (bounded
 * concurrency), their reports come back in handoff order, and the lead answers.
 *
 *   pnpm --filter @agent-lattice/examples teams          offline, against the embedded mock server
 *   DEEPSEEK_API_KEY=… / ANTHROPIC_API_KEY=…             against a real provider
 */
import { pathToFileURL } from "node:url";
import { createMemoryMailbox, createTeam, teamMember } from "@agent-lattice/team";
import { createBareAgent } from "agent-lattice";
import { text, textTurn, toolUse, turn } from "agent-lattice/testing";
import { renderTeamEvent } from "./render-team.js";
import { heardBack, lastUserText, resolveTeamProvider } from "./team-provider.js";

const PROMPT = "Ask the researcher to inspect the SDK design and the writer to draft the release note.";

export async function runTeamsExample(
  write: (text: string) => void = text => process.stdout.write(text),
): Promise<number> {
  const provider = await resolveTeamProvider((role, request) => {
    if (role === "lead") {
      if (!heardBack(request)) {
        return turn([
          text("I'll hand both tasks off at once."),
          toolUse("researcher", { mode: "handoff", task: "Inspect the SDK design: name its core parts." }),
          toolUse("writer", { mode: "handoff", task: "Draft a two-sentence release note for teams." }),
        ]);
      }
      const reports = lastUserText(request).match(/\[team_report\][^\n]*"member":"(\w+)"/g) ?? [];
      return textTurn(`Both members reported (${reports.length} reports, in handoff order). Done.`);
    }
    if (role === "researcher")
      return textTurn("Core parts: one agent loop, ports (model, tracer, mailbox), adapters.", {
        delayMs: 120,
      });
    return textTurn(
      "Teams are here: named members with durable mailboxes. Hand work off and get reports in order.",
      { delayMs: 40 },
    );
  });
  write(`AgentLattice teams example — provider: ${provider.label}\n\n> ${PROMPT}\n\n`);
  const agent = (role: string, job: string) =>
    createBareAgent({
      apiKey: provider.apiKey,
      baseURL: provider.baseURL,
      model: provider.model,
      systemPrompt: `You are the ${role}. ${job}`,
      maxTurns: 6,
    });
  const team = createTeam({
    name: "engineering",
    lead: agent(
      "lead",
      "You lead engineering work. Delegate research to researcher and writing to writer with mode handoff.",
    ),
    members: [
      teamMember({
        name: "researcher",
        role: "executor",
        focus: "Research agent architecture",
        agent: agent("researcher", "Report concise findings."),
      }),
      teamMember({
        name: "writer",
        role: "executor",
        focus: "Write release notes",
        agent: agent("writer", "Write crisp release notes."),
      }),
    ],
    mailbox: createMemoryMailbox(),
    runner: { maxConcurrentWorkItems: 2 },
  });
  let exitCode = 1;
  try {
    for await (const event of team.query(PROMPT)) exitCode = renderTeamEvent(event, write) ?? exitCode;
    const delegations = [
      ...(await team.mailbox.inbox(team.mailboxIdOf("researcher"), { status: "all" })),
      ...(await team.mailbox.inbox(team.mailboxIdOf("writer"), { status: "all" })),
    ];
    write(`\nmailbox: ${delegations.map(message => `${message.to} ${message.status}`).join(", ")}\n`);
  } finally {
    await team.close();
    await provider.close();
  }
  return exitCode;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runTeamsExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
