import type { QueryRuntime, SDKMessage } from "@agent-lattice/core";
import type { ClaimedTeamMessage, TeamMessage } from "./mailbox.js";
import type { TeamContext, TeamEvents } from "./team-context.js";

/**
 * What the team_* mailbox tools act on: whose mailbox they serve and, while a member processes a message, that
 * message. It reaches the tools as the runtime of the query they run in (`extra.run.runtime`), so the same tool
 * objects serve every team and every work item; outside a team's work they refuse politely.
 */
export interface MailboxToolContext {
  team: TeamContext;
  events: TeamEvents;
  /** The mailbox the caller owns ("engineering::researcher", or the lead's). */
  mailboxId: string;
  /** The message being processed, when the caller is a member working on one. */
  current: ClaimedTeamMessage | undefined;
  /** team_reply's text, delivered when the run ends (the message settles once, with its reply). */
  reply: string | undefined;
  followups: TeamMessage[];
  /** Messages sent with team_send during this run. */
  sent: TeamMessage[];
  /** Streams team events of the tools to the running query's consumer. */
  emit: ((message: SDKMessage) => Promise<void>) | undefined;
}

const CONTEXT = Symbol.for("agent-lattice.team.mailbox-context");

/** Attaches a mailbox context to a runtime object (non-enumerable, shared across installed copies). */
export function withMailboxContext<T extends object>(runtime: T, context: MailboxToolContext): T {
  Object.defineProperty(runtime, CONTEXT, { value: context, enumerable: false, configurable: true });
  return runtime;
}

export function mailboxContextOf(runtime: QueryRuntime | undefined): MailboxToolContext | undefined {
  if (!runtime || typeof runtime !== "object") return undefined;
  return (runtime as unknown as Record<symbol, MailboxToolContext | undefined>)[CONTEXT];
}
