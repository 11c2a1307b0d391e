/**
 * The TeamMailbox port: where a team's messages live and how work on them is claimed and settled. The team
 * runtime only talks to this interface; createMemoryMailbox() (one process), createSQLiteMailbox() (one machine,
 * durable) and a host's own adapter (Redis, D1, PostgreSQL, …) implement it, and every implementation must pass
 * the conformance suite in `@agent-lattice/team/conformance`.
 *
 * The model: a message is addressed to one mailbox (`to`, e.g. "engineering::researcher") and is handled only by
 * that mailbox's member. Its status moves
 *
 *     pending ──claim──▶ processing ──complete──▶ completed
 *        ▲                  │  │ └────fail─────▶ failed
 *        └──release/expiry──┘  └────cancel───▶ cancelled   (pending ──cancel──▶ cancelled too)
 *
 * A mailbox belongs to one member, and a member works serially: while one of its messages is processing under a
 * live lease, no other message of that mailbox can be claimed — by anyone, in any process sharing the store.
 *
 * A claim carries a lease: the claimer renews it while it works; a claim whose lease expired (its process died)
 * is claimed again by the next claimNext(). Settling (complete/fail/cancel/release) needs the claim's token, so a
 * claimer that lost its lease cannot settle a message someone else now owns: every message reaches exactly one
 * terminal status. Replies and follow-ups a settle sends are written in the same atomic step.
 *
 * Optionally, watch() lets a caller sleep until a mailbox changes — a worker with nothing to claim, a lead waiting
 * for reports produced in other processes — instead of polling. The runtime polls (with backoff) adapters without it.
 *
 * Failures: an adapter over a remote store retries what it safely can itself (the PostgreSQL mailbox reconnects), and
 * marks the errors it throws with a boolean `transient` property. `transient: true` — the store was unreachable and
 * the same call may succeed later: runTeamWorker() and a lead waiting for remote work keep retrying (with backoff)
 * and never stop for it. `transient: false` — it cannot succeed without a fix (a refused login, a missing schema, no
 * permission): the worker stops and rejects with it, a waiting lead's run fails with it. Errors without the property
 * keep the older rule (a worker retries them; a waiting lead tolerates 20 in a row).
 */

/** Where a message is in its life. completed, failed and cancelled are terminal. */
export type TeamMessageStatus = "pending" | "processing" | "completed" | "failed" | "cancelled";

export const TERMINAL_STATUSES: ReadonlySet<TeamMessageStatus> = new Set([
  "completed",
  "failed",
  "cancelled",
]);

/**
 * - `delegation`: work the lead handed to a member through its member tool (ask or handoff); the member's run
 *   result is the reply.
 * - `message`: work sent with team.send() or team_send; the member must answer with team_reply or team_followup.
 * - `reply`: the answer to a delegation or message, sent upstream.
 * - `followup`: progress or a diagnostic about a message, sent upstream.
 */
export type TeamMessageKind = "delegation" | "message" | "reply" | "followup";

/** How a settled message ended, as recorded in the mailbox. */
export interface TeamMessageOutcome {
  /** The reply or report text (completed), or what went wrong (failed / cancelled). */
  content?: string;
  /** For failures: a stable code (e.g. "max_turns", "api_error", "no_reply") and a message. */
  error?: { code: string; message: string };
}

export interface TeamMessage {
  id: string;
  /** The unit of work this message belongs to: a request starts one; its replies and follow-ups share it. */
  workItemId: string;
  /** The conversation: every message that followed from one root request. */
  threadId: string;
  /** The message this one answers or follows from. */
  parentMessageId?: string;
  /** Sender mailbox id, e.g. "engineering::lead". */
  from: string;
  /** Recipient mailbox id, e.g. "engineering::researcher": only that member handles it. */
  to: string;
  kind: TeamMessageKind;
  content: string;
  status: TeamMessageStatus;
  /** JSON-serialisable facts about the message (mode, accepted workspace grants, the delegating tool call, …). */
  metadata: Record<string, unknown>;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** How many times it was claimed (more than 1 after a lease expired or a release). */
  attempts: number;
  /** While processing: who holds the claim and until when. */
  claimedBy?: string;
  leaseExpiresAt?: number;
  /** Once terminal. */
  outcome?: TeamMessageOutcome;
}

/** A message as claimed: `claimToken` proves the claim when renewing or settling it. */
export interface ClaimedTeamMessage extends TeamMessage {
  status: "processing";
  claimToken: string;
  claimedBy: string;
  leaseExpiresAt: number;
}

export interface NewTeamMessage {
  from: string;
  to: string;
  content: string;
  /** Default "message". */
  kind?: TeamMessageKind;
  /** Default: the parent's thread, else a new one. */
  threadId?: string;
  /** Default: the parent's work item for replies and follow-ups, else a new one. */
  workItemId?: string;
  parentMessageId?: string;
  metadata?: Record<string, unknown>;
}

export interface ClaimOptions {
  /** Who claims (recorded as claimedBy); default an id of this process. */
  owner?: string;
  /** Lease length in milliseconds (default 60 000). */
  leaseMs?: number;
}

export interface InboxOptions {
  /** Default "pending". */
  status?: TeamMessageStatus | "all";
  /** Oldest first; default no limit. */
  limit?: number;
}

export interface SettleOptions {
  outcome?: TeamMessageOutcome;
  /** Messages written in the same atomic step as the status change (a reply, a diagnostic follow-up). */
  send?: NewTeamMessage[];
}

export interface SettledTeamMessage {
  message: TeamMessage;
  sent: TeamMessage[];
}

/** One recorded status change, for audits and monitoring. */
export interface TeamMessageTransition {
  messageId: string;
  from: TeamMessageStatus | null;
  to: TeamMessageStatus;
  at: number;
  /** The claim involved (claims, renew-free settles); absent for send and unclaimed cancels. */
  claimToken?: string;
  owner?: string;
}

export interface TeamMailboxWatchOptions {
  /** Closes the watch when aborted (its pending wait() calls resolve false). */
  signal?: AbortSignal;
}

export interface TeamMailboxWaitOptions {
  /** Give up after this many milliseconds (resolve false). Default: wait until a change, close or abort. */
  timeoutMs?: number;
  /** Stop this wait (resolve false) without closing the watch. */
  signal?: AbortSignal;
}

/**
 * A subscription to changes of some mailboxes, active from the moment watch() resolved: a change that happens
 * between two wait() calls is not lost (the next wait() resolves at once).
 */
export interface TeamMailboxWatch {
  /**
   * Resolves true once a watched mailbox changed since watch() or since the previous wait() that resolved true: a
   * message arrived in it, or one of its messages was settled, released or cancelled (so work may be claimable, or
   * a reply is there). Resolves false when the timeout passed, the wait's signal aborted or the watch was closed.
   * Wake-ups may be spurious (a change elsewhere, a reconnect): re-check the mailbox after each one.
   */
  wait(options?: TeamMailboxWaitOptions): Promise<boolean>;
  /** Ends the subscription; pending waits resolve false. Idempotent. */
  close(): Promise<void>;
}

/**
 * The mailbox port. Every method is atomic with respect to every other caller of the same store, also across
 * connections and processes where the store is shared. "Not possible now" answers are values (undefined/false),
 * never exceptions: a claim that was lost, a message already taken.
 */
export interface TeamMailbox {
  /** Stores a new pending message and returns it. Throws on invalid input (nothing stored). */
  send(message: NewTeamMessage): Promise<TeamMessage>;
  get(messageId: string): Promise<TeamMessage | undefined>;
  /** Messages addressed to `mailboxId`, oldest first; pending ones unless `status` says otherwise. */
  inbox(mailboxId: string, options?: InboxOptions): Promise<TeamMessage[]>;
  /** Every message of a thread, oldest first. */
  thread(threadId: string): Promise<TeamMessage[]>;
  /**
   * Claims the oldest claimable message of `mailboxId` — pending, or processing with an expired lease (its
   * claimer died) — and marks it processing. Undefined when there is none, or while another message of the
   * mailbox is processing under a live lease (members work serially).
   */
  claimNext(mailboxId: string, options?: ClaimOptions): Promise<ClaimedTeamMessage | undefined>;
  /** Claims one message by id, under the same rule as claimNext(). Undefined when it is not claimable. */
  claim(messageId: string, options?: ClaimOptions): Promise<ClaimedTeamMessage | undefined>;
  /** Extends a held claim's lease; false when the claim was lost (expired and reclaimed, or settled). */
  renew(messageId: string, claimToken: string, leaseMs?: number): Promise<boolean>;
  /** processing → completed, writing `send` atomically with it. Undefined when the claim is not held. */
  complete(
    messageId: string,
    claimToken: string,
    options?: SettleOptions,
  ): Promise<SettledTeamMessage | undefined>;
  /** processing → failed, writing `send` atomically with it. Undefined when the claim is not held. */
  fail(
    messageId: string,
    claimToken: string,
    options?: SettleOptions,
  ): Promise<SettledTeamMessage | undefined>;
  /** processing → pending (graceful shutdown: someone else may take it). Undefined when the claim is not held. */
  release(messageId: string, claimToken: string): Promise<TeamMessage | undefined>;
  /**
   * pending → cancelled, or processing → cancelled with the claim's token. Undefined when the message is terminal,
   * unknown, or claimed by someone else.
   */
  cancel(
    messageId: string,
    options?: { claimToken?: string; outcome?: TeamMessageOutcome },
  ): Promise<TeamMessage | undefined>;
  /** The status changes of one message, oldest first. */
  transitions(messageId: string): Promise<TeamMessageTransition[]>;
  /**
   * Subscribes to changes of `mailboxIds` — across every process sharing the store when the store can tell (memory:
   * this process; SQLite: polling with backoff; PostgreSQL: LISTEN/NOTIFY). Optional: without it the runtime
   * polls with backoff. Changes it must report: a message sent to a watched mailbox; a message of one settled,
   * released or cancelled. Claims and renewals need not be reported.
   */
  watch?(mailboxIds: readonly string[], options?: TeamMailboxWatchOptions): Promise<TeamMailboxWatch>;
  /** Releases what the adapter holds (not the host's database connection). Optional. */
  close?(): Promise<void>;
}

export const DEFAULT_LEASE_MS = 60_000;

const MAILBOX_METHODS = [
  "send",
  "get",
  "inbox",
  "thread",
  "claimNext",
  "claim",
  "renew",
  "complete",
  "fail",
  "release",
  "cancel",
  "transitions",
] as const;

/** The port methods `value` lacks (empty when it is a TeamMailbox). */
export function missingMailboxMethods(value: unknown): string[] {
  if (!value || typeof value !== "object") return [...MAILBOX_METHODS];
  return MAILBOX_METHODS.filter(method => typeof (value as Record<string, unknown>)[method] !== "function");
}
