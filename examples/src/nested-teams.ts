/**
 * Nested teams: CEO → engineering (a team) → backend / frontend. The CEO hands engineering the goal; the engineering
 * head splits it, its executors report, the head answers the CEO.
 *
 *   pnpm --filter @agent-lattice/examples nested-teams   offline, against the embedded mock server
 */
import { pathToFileURL } from "node:url";
import { createTeam, teamMember } from "@agent-lattice/team";
import { createBareAgent } from "agent-lattice";
import { textTurn, toolUse, turn } from "agent-lattice/testing";
import { renderTeamEvent } from "./render-team.js";
import { heardBack, resolveTeamProvider } from "./team-provider.js";

const PROMPT = "We need a notes app: an API to save notes and a form to write them.";

export async function runNestedTeamsExample(
  write: (text: string) => void = text => process.stdout.write(text),
): Promise<number> {
  const provider = await resolveTeamProvider((role, request) => {
    switch (role) {
      case "CEO":
        return heardBack(request)
          ? textTurn("Engineering delivered the notes API and form; shipping.")
          : turn([
              toolUse("engineering", {
                mode: "handoff",
                task: "Deliver a notes app: save-notes API and a notes form.",
              }),
            ]);
      case "engineering":
        return heardBack(request)
          ? textTurn("Backend: POST /notes is live. Frontend: the notes form posts to it.")
          : turn([
              toolUse("backend", { mode: "handoff", task: "Build POST /notes storing { title, body }." }),
              toolUse("frontend", {
                mode: "handoff",
                task: "Build a notes form that posts { title, body } to /notes.",
              }),
            ]);
      case "backend":
        return textTurn("POST /notes implemented with validation and storage.");
      default:
        return textTurn("Notes form implemented; it posts to /notes.");
    }
  });
  write(`AgentLattice nested teams example — provider: ${provider.label}\n\n> ${PROMPT}\n\n`);
  const createDeepSeekAgent = (systemPrompt: string) =>
    createBareAgent({
      apiKey: provider.apiKey,
      baseURL: provider.baseURL,
      model: provider.model,
      systemPrompt,
      maxTurns: 6,
    });
  const ceoAgent = createDeepSeekAgent(
    "You are the CEO agent. Clarify product goals, decide which department owns the work (hand it off), and ask for concise progress reports. Do not implement engineering details yourself.",
  );
  const engineeringHeadAgent = createDeepSeekAgent(
    "You are the engineering head agent. Break engineering goals into backend and frontend work, hand tasks to the right executor, and report outcomes upstream.",
  );
  const backendAgent = createDeepSeekAgent(
    "You are the backend executor agent. Handle APIs, data models, storage.",
  );
  const frontendAgent = createDeepSeekAgent(
    "You are the frontend executor agent. Handle UI flows and client state.",
  );

  const engineeringTeam = createTeam({
    name: "engineering",
    lead: engineeringHeadAgent,
    members: [
      teamMember({ name: "backend", role: "executor", agent: backendAgent }),
      teamMember({ name: "frontend", role: "executor", agent: frontendAgent }),
    ],
  });
  const companyTeam = createTeam({
    name: "company",
    lead: ceoAgent,
    members: [
      teamMember({
        name: "engineering",
        role: "head",
        focus: "Own engineering delivery",
        agent: engineeringTeam,
      }),
    ],
  });
  let exitCode = 1;
  try {
    for await (const event of companyTeam.query(PROMPT)) exitCode = renderTeamEvent(event, write) ?? exitCode;
  } finally {
    await companyTeam.close();
    await engineeringTeam.close();
    await provider.close();
  }
  return exitCode;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runNestedTeamsExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
