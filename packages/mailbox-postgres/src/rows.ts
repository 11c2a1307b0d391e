import type { TeamMessage, TeamMessageStatus, TeamMessageTransition } from "@agent-lattice/team";

/** A row of `<schema>.messages` as node-postgres returns it (bigint columns arrive as strings). */
export interface MessageRow {
  seq: string | number;
  work_item_id: string;
  thread_id: string;
  parent_message_id: string | null;
  from_mailbox: string;
  to_mailbox: string;
  kind: TeamMessage["kind"];
  content: string;
  status: TeamMessageStatus;
  metadata: unknown;
  created_at: string | number;
  updated_at: string | number;
  attempts: number;
  claimed_by: string | null;
  claim_token: string | null;
  lease_expires_at: string | number | null;
  outcome: unknown;
  history: unknown;
}

/** One entry of a row's transition log: [from, to, at, claimToken, owner]. */
export type LoggedTransition = [
  TeamMessageStatus | null,
  TeamMessageStatus,
  number,
  string | null,
  string | null,
];

/** json/jsonb columns arrive parsed with pg's default type parsers, as text with a host's custom ones. */
export function json(value: unknown): any {
  return typeof value === "string" ? JSON.parse(value) : value;
}

export function toMessage(row: MessageRow, idOf: (seq: number) => string): TeamMessage {
  const message: TeamMessage = {
    id: idOf(Number(row.seq)),
    workItemId: row.work_item_id,
    threadId: row.thread_id,
    ...(row.parent_message_id ? { parentMessageId: row.parent_message_id } : {}),
    from: row.from_mailbox,
    to: row.to_mailbox,
    kind: row.kind,
    content: row.content,
    status: row.status,
    metadata: json(row.metadata) ?? {},
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    attempts: Number(row.attempts),
  };
  if (row.status === "processing") {
    if (row.claimed_by) message.claimedBy = row.claimed_by;
    if (row.lease_expires_at !== null) message.leaseExpiresAt = Number(row.lease_expires_at);
  }
  const outcome = json(row.outcome);
  if (outcome) message.outcome = outcome;
  return message;
}

export function toTransitions(messageId: string, history: unknown): TeamMessageTransition[] {
  return (json(history) as LoggedTransition[]).map(([from, to, at, claimToken, owner]) => {
    const transition: TeamMessageTransition = { messageId, from, to, at: Number(at) };
    if (claimToken) transition.claimToken = claimToken;
    if (owner) transition.owner = owner;
    return transition;
  });
}
