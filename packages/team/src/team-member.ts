import type { AgentLike, AgentSpec } from "@agent-lattice/core";
import { InvalidOptionError } from "@agent-lattice/core";
import { assertKnownOptions, isAgentSpec, TOOL_NAME } from "@agent-lattice/core/internal";

/** A member's place in the team: "head" of a sub-team, "executor" of work, or a role of your own. */
export type TeamMemberRole = "lead" | "head" | "executor" | (string & {});

export interface TeamMemberOptions {
  /** The member's name: its tool name in the lead and its mailbox (`<team>::<name>`). */
  name: string;
  role: TeamMemberRole;
  /** What the member is for; shown to the lead in the member tool's description. */
  focus?: string;
  /** Any AgentLike — an agent, another team (nested teams), a host adapter — or a spec (a fresh session per work item). */
  agent: AgentLike<any, any> | AgentSpec<any>;
}

export interface TeamMember extends Readonly<TeamMemberOptions> {
  readonly kind: "team_member";
}

const KEYS: ReadonlySet<string> = new Set(["name", "role", "focus", "agent"]);
/** The lead's mailbox is `<team>::lead`, so no member may take that name. */
export const LEAD_MAILBOX_NAME = "lead";

/** Declares a team member. Validated here, so a bad member fails where it is written. */
export function teamMember(options: TeamMemberOptions): TeamMember {
  if (!options || typeof options !== "object") {
    throw new InvalidOptionError(
      'teamMember(): expected { name, role, focus?, agent }, e.g. teamMember({ name: "researcher", role: "executor", agent }).',
    );
  }
  assertKnownOptions(options, KEYS, "teamMember()");
  const { name, role, focus, agent } = options;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new InvalidOptionError(
      `teamMember(): invalid name ${JSON.stringify(name)}. The name becomes the member's tool name, so it must match ${TOOL_NAME}.`,
    );
  }
  if (name === LEAD_MAILBOX_NAME) {
    throw new InvalidOptionError(
      `teamMember(): the name "${LEAD_MAILBOX_NAME}" is reserved for the team's lead mailbox (<team>::lead). Pick another name.`,
    );
  }
  if (typeof role !== "string" || role.trim() === "") {
    throw new InvalidOptionError(
      `teamMember("${name}"): role must be a non-empty string such as "executor" or "head".`,
    );
  }
  if (focus !== undefined && typeof focus !== "string") {
    throw new InvalidOptionError(`teamMember("${name}"): focus must be a string.`);
  }
  if (!isAgentSpec(agent) && !isAgentLike(agent)) {
    throw new InvalidOptionError(
      `teamMember("${name}"): agent must be an AgentLike (an agent, a team, or an object with query(), prompt() and interrupt()) or a spec from defineAgent().`,
    );
  }
  return Object.freeze({ kind: "team_member" as const, name, role, ...(focus ? { focus } : {}), agent });
}

export function isAgentLike(value: unknown): value is AgentLike<any, any> {
  const candidate = value as Partial<AgentLike<any, any>> | null;
  return (
    !!candidate &&
    typeof candidate === "object" &&
    typeof candidate.query === "function" &&
    typeof candidate.prompt === "function" &&
    typeof candidate.interrupt === "function"
  );
}

/** An agent that accepts tools after creation (an Agent from createAgent()/createBareAgent()). */
export interface ToolCapable {
  addTools(tools: unknown[]): void;
}

export function isToolCapable(value: unknown): value is ToolCapable {
  return !!value && typeof (value as Partial<ToolCapable>).addTools === "function";
}
