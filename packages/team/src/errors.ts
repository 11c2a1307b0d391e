import { AgentLatticeError } from "@agent-lattice/core";

/**
 * Stable codes of TeamError:
 * - `team_tool_conflict`: a member tool (or a team_* mailbox tool) would shadow a tool the agent already has.
 * - `team_not_tool_capable`: the lead cannot take the injected member tools (it has no addTools()).
 * - `team_unknown_mailbox`: a message was addressed to a mailbox that is not this team's lead or a member.
 * - `team_closed`: the team (or runner) was closed.
 * - `team_busy`: the team is already running a query (a team has one lead conversation).
 */
export type TeamErrorCode =
  | "team_tool_conflict"
  | "team_not_tool_capable"
  | "team_unknown_mailbox"
  | "team_closed"
  | "team_busy";

/** A team could not be assembled or asked to do something it cannot do. The message says what to change. */
export class TeamError extends AgentLatticeError {
  declare readonly code: TeamErrorCode;
  constructor(code: TeamErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
