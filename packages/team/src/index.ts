// @agent-lattice/team: mailbox-backed teams. Every name here is documented at its definition.
export { TeamError, type TeamErrorCode } from "./errors.js";
export type {
  TeamAgentEvent,
  TeamAgentTraceData,
  TeamMessageEvent,
  TeamMessageEventSubtype,
  TeamMessageTraceData,
  TeamRunnerMessage,
} from "./events.js";
export {
  type ClaimedTeamMessage,
  type ClaimOptions,
  DEFAULT_LEASE_MS,
  type InboxOptions,
  type NewTeamMessage,
  type SettledTeamMessage,
  type SettleOptions,
  TERMINAL_STATUSES,
  type TeamMailbox,
  type TeamMailboxWaitOptions,
  type TeamMailboxWatch,
  type TeamMailboxWatchOptions,
  type TeamMessage,
  type TeamMessageKind,
  type TeamMessageOutcome,
  type TeamMessageStatus,
  type TeamMessageTransition,
} from "./mailbox.js";
export { MAILBOX_TOOL_NAMES } from "./mailbox-tools.js";
export { createNotifiableWatch, type NotifiableMailboxWatch } from "./mailbox-watch.js";
export { createMemoryMailbox } from "./memory-mailbox.js";
export {
  createTeam,
  type Team,
  type TeamOptions,
  type TeamSendInput,
  type TeamSendOptions,
} from "./team.js";
export { type TeamMember, type TeamMemberOptions, type TeamMemberRole, teamMember } from "./team-member.js";
export type { ObserveHandler } from "./team-run.js";
export {
  type CreateTeamRunnerOptions,
  createTeamRunner,
  type TeamDrainOptions,
  type TeamDrainResult,
  type TeamRunner,
  type TeamRunnerOptions,
} from "./team-runner.js";
export { runTeamWorker, type TeamWorkerOptions, type TeamWorkerResult } from "./team-worker.js";
