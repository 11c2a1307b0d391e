import type { SDKMessage, Usage } from "@agent-lattice/core";
import type { TeamMessage, TeamMessageStatus } from "./mailbox.js";

/**
 * What happened to a mailbox message, streamed by team.query() as the work progresses:
 * - `sent`: a message was stored (a delegation, a team_send, a reply or follow-up upstream)
 * - `claimed`: a member started on it (status processing)
 * - `completed` / `failed` / `cancelled`: it reached its terminal status
 * - `released`: a worker shutting down handed it back (pending again, for another worker)
 */
export type TeamMessageEventSubtype = "sent" | "claimed" | "completed" | "failed" | "cancelled" | "released";

export type TeamMessageEvent = {
  type: "team_message";
  subtype: TeamMessageEventSubtype;
  /** The team's name. */
  team: string;
  /** The message as stored after the change. */
  message: TeamMessage;
  /** The team's session (its lead's session id). */
  session_id: string;
};

/** A member run started or finished on a work item. */
export type TeamAgentEvent = {
  type: "team_agent";
  subtype: "started" | "finished";
  team: string;
  /** The member's name. */
  agent: string;
  /** The mailbox the member serves, e.g. "engineering::researcher". */
  mailbox: string;
  message_id: string;
  work_item_id: string;
  thread_id: string;
  /** For finished: the message's terminal status. */
  status?: Extract<TeamMessageStatus, "completed" | "failed" | "cancelled">;
  /** For finished: the tokens the member's run spent. */
  usage?: Usage;
  /**
   * For finished: tool calls of the member's run whose handler failed (threw, timed out, abandoned, invalid
   * result), by tool; absent when none did. A member can complete its work although its tools failed.
   */
  tool_errors?: Record<string, number>;
  session_id: string;
};

/** Trace payload of a team_message event. */
export interface TeamMessageTraceData {
  subtype: TeamMessageEventSubtype;
  team: string;
  message: TeamMessage;
}

/** Trace payload of a team_agent event. */
export interface TeamAgentTraceData {
  subtype: "started" | "finished";
  team: string;
  agent: string;
  mailbox: string;
  message_id: string;
  work_item_id: string;
  thread_id: string;
  status?: "completed" | "failed" | "cancelled";
  usage?: Usage;
  tool_errors?: Record<string, number>;
}

declare module "@agent-lattice/core" {
  interface SDKMessageMap {
    team_message: TeamMessageEvent;
    team_agent: TeamAgentEvent;
  }
  interface ContextTraceEventDataMap {
    team_message: TeamMessageTraceData;
    team_agent: TeamAgentTraceData;
  }
}

/** Everything team.query() yields: the lead's SDK messages, team events and nested agent_message events. */
export type TeamRunnerMessage = SDKMessage;
