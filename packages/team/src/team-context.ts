import type { OutputSchema, SDKMessage, ToolDefinition } from "@agent-lattice/core";
import type { RunTrace } from "@agent-lattice/core/internal";
import type { TeamMessageEventSubtype } from "./events.js";
import type { TeamMailbox, TeamMessage } from "./mailbox.js";
import type { TeamMember } from "./team-member.js";

/** A member as the runtime sees it: its mailbox, its delegation tool and the output contract of that tool. */
export interface ResolvedMember {
  member: TeamMember;
  name: string;
  mailboxId: string;
  tool: ToolDefinition<any>;
  outputSchema: OutputSchema | undefined;
}

/** What every part of the runtime needs to know about the team it serves. */
export interface TeamContext {
  readonly name: string;
  readonly mailbox: TeamMailbox;
  readonly leadMailboxId: string;
  /** The team's session id (its lead's), stamped on team events. */
  readonly sessionId: string;
  readonly members: readonly ResolvedMember[];
  memberByName(name: string): ResolvedMember | undefined;
  memberByMailbox(mailboxId: string): ResolvedMember | undefined;
  /** Resolves "researcher", "lead" or "engineering::researcher" to a mailbox id of this team; throws TeamError. */
  resolveMailbox(address: string): string;
}

/** Streams team events to a consumer (back-pressure) and records them in the team's trace. */
export class TeamEvents {
  constructor(
    private readonly team: TeamContext,
    private readonly trace: RunTrace | undefined,
  ) {}

  async message(
    subtype: TeamMessageEventSubtype,
    message: TeamMessage,
    emit: ((event: SDKMessage) => Promise<void>) | undefined,
  ): Promise<void> {
    if (this.trace?.enabled)
      await this.trace.emit("team_message", { subtype, team: this.team.name, message });
    await emit?.({
      type: "team_message",
      subtype,
      team: this.team.name,
      message,
      session_id: this.team.sessionId,
    });
  }

  async agent(
    event: Omit<Extract<SDKMessage, { type: "team_agent" }>, "type" | "team" | "session_id">,
    emit: ((event: SDKMessage) => Promise<void>) | undefined,
  ): Promise<void> {
    if (this.trace?.enabled) await this.trace.emit("team_agent", { ...event, team: this.team.name });
    await emit?.({ type: "team_agent", ...event, team: this.team.name, session_id: this.team.sessionId });
  }
}
