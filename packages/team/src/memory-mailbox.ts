import { randomUUID } from "node:crypto";
import { InvalidOptionError } from "@agent-lattice/core";
import { copyJsonValue, toJsonValue } from "./json-value.js";
import {
  type ClaimedTeamMessage,
  type ClaimOptions,
  DEFAULT_LEASE_MS,
  type InboxOptions,
  type NewTeamMessage,
  type SettledTeamMessage,
  type SettleOptions,
  TERMINAL_STATUSES,
  type TeamMailbox,
  type TeamMessage,
  type TeamMessageKind,
  type TeamMessageOutcome,
  type TeamMessageStatus,
  type TeamMessageTransition,
} from "./mailbox.js";
import { createNotifiableWatch, type NotifiableMailboxWatch } from "./mailbox-watch.js";
import { processOwner } from "./owner.js";

/**
 * One stored message. The mailbox changes it in place; callers only ever see copies (view()), so nothing they hold
 * reaches the store. Every field exists on every entry (one object shape, cheap to read).
 */
class Entry {
  readonly id: string;
  readonly workItemId: string;
  readonly threadId: string;
  readonly parentMessageId: string | undefined;
  readonly from: string;
  readonly to: string;
  readonly kind: TeamMessageKind;
  readonly content: string;
  /** Plain JSON (normalised at send), never handed out: view() copies it. */
  readonly metadata: Record<string, unknown>;
  readonly createdAt: number;
  status: TeamMessageStatus = "pending";
  updatedAt: number;
  attempts = 0;
  claimedBy: string | undefined = undefined;
  leaseExpiresAt: number | undefined = undefined;
  claimToken: string | undefined = undefined;
  /** Plain JSON once terminal (see assertOutcome / toJsonValue). */
  outcome: TeamMessageOutcome | undefined = undefined;
  readonly transitions: TeamMessageTransition[] = [];

  constructor(input: ValidNewMessage, now: number, parent: Entry | undefined) {
    const answers = input.kind === "reply" || input.kind === "followup";
    this.id = `msg_${randomUUID()}`;
    this.workItemId = input.workItemId ?? (answers && parent ? parent.workItemId : `wi_${randomUUID()}`);
    this.threadId = input.threadId ?? parent?.threadId ?? `th_${randomUUID()}`;
    this.parentMessageId = input.parentMessageId || undefined;
    this.from = input.from;
    this.to = input.to;
    this.kind = input.kind;
    this.content = input.content;
    this.metadata = input.metadata;
    this.createdAt = now;
    this.updatedAt = now;
  }
}

/** A recipient mailbox's messages, oldest first, and what its claims need to know without scanning them all. */
class MailboxIndex {
  readonly all: Entry[] = [];
  /** Every message before this index is terminal: claims start looking here. */
  head = 0;
  /** Its messages in status processing (live or expired leases): "is the member busy?" looks only at these. */
  readonly processing = new Set<Entry>();

  /** The oldest message that is not terminal. */
  firstOpen(): Entry | undefined {
    while (this.head < this.all.length && TERMINAL_STATUSES.has(this.all[this.head]!.status)) this.head += 1;
    return this.all[this.head];
  }

  /** A member works serially: while one of its messages is processing under a live lease, nothing else is claimed. */
  busy(now: number, except?: Entry): boolean {
    for (const entry of this.processing)
      if (entry !== except && (entry.leaseExpiresAt ?? 0) > now) return true;
    return false;
  }
}

const KINDS: ReadonlySet<TeamMessageKind> = new Set(["delegation", "message", "reply", "followup"]);
const STATUSES: ReadonlySet<string> = new Set([
  "pending",
  "processing",
  "completed",
  "failed",
  "cancelled",
  "all",
]);

/**
 * A TeamMailbox in this process's memory: fast, atomic (JavaScript runs one call at a time), gone when the process
 * exits. The right mailbox for one-process teams and tests; use createSQLiteMailbox() when accepted work must
 * survive a crash.
 *
 * Costs: send, claim, settle, get and transitions are O(1) (claimNext too, amortised: it skips settled messages
 * once); inbox() is O(messages of that mailbox) and thread() O(messages of that thread). Every returned message
 * is the caller's own copy.
 */
export function createMemoryMailbox(): TeamMailbox {
  const byId = new Map<string, Entry>();
  const byMailbox = new Map<string, MailboxIndex>();
  const byThread = new Map<string, Entry[]>();
  /** Open watches per mailbox id: a change wakes them in-process (watch()). */
  const watchers = new Map<string, Set<NotifiableMailboxWatch>>();
  const changed = (mailboxId: string) => {
    const set = watchers.get(mailboxId);
    if (set) for (const watch of set) watch.notify();
  };
  const indexOf = (mailboxId: string): MailboxIndex => {
    let index = byMailbox.get(mailboxId);
    if (!index) {
      index = new MailboxIndex();
      byMailbox.set(mailboxId, index);
    }
    return index;
  };

  const record = (
    entry: Entry,
    from: TeamMessageStatus | null,
    to: TeamMessageStatus,
    at: number,
    claim?: { token: string; owner: string | undefined },
  ) => {
    const transition: TeamMessageTransition = { messageId: entry.id, from, to, at };
    if (claim) {
      transition.claimToken = claim.token;
      if (claim.owner) transition.owner = claim.owner;
    }
    entry.transitions.push(transition);
  };

  const insert = (input: ValidNewMessage, now: number): Entry => {
    const parent = input.parentMessageId ? byId.get(input.parentMessageId) : undefined;
    const entry = new Entry(input, now, parent);
    byId.set(entry.id, entry);
    indexOf(entry.to).all.push(entry);
    const thread = byThread.get(entry.threadId);
    if (thread) thread.push(entry);
    else byThread.set(entry.threadId, [entry]);
    record(entry, null, "pending", now);
    changed(entry.to);
    return entry;
  };

  const claimable = (entry: Entry, now: number) =>
    entry.status === "pending" || (entry.status === "processing" && (entry.leaseExpiresAt ?? 0) <= now);

  const take = (entry: Entry, leaseMs: number, options: ClaimOptions | undefined, now: number) => {
    const owner = options?.owner ?? processOwner();
    const token = randomUUID();
    const previous = entry.status;
    entry.claimToken = token;
    entry.status = "processing";
    entry.claimedBy = owner;
    entry.leaseExpiresAt = now + leaseMs;
    entry.attempts += 1;
    entry.updatedAt = now;
    indexOf(entry.to).processing.add(entry);
    record(entry, previous, "processing", now, { token, owner });
    const claimed = view(entry) as ClaimedTeamMessage;
    claimed.claimToken = token;
    return claimed;
  };

  // An expired lease is lost only once someone reclaims it (a new token); until then the holder may still settle.
  const held = (messageId: string, claimToken: string): Entry | undefined => {
    const entry = byId.get(messageId);
    return entry?.status === "processing" && entry.claimToken === claimToken ? entry : undefined;
  };

  const settle = (
    messageId: string,
    claimToken: string,
    status: "completed" | "failed",
    options: SettleOptions | undefined,
  ): SettledTeamMessage | undefined => {
    const now = Date.now();
    const entry = held(messageId, claimToken);
    if (!entry) return undefined;
    // Validate everything before changing anything: a bad follow-up must not leave a half-settled message.
    const pending = options?.send?.length ? options.send.map(validateNew) : [];
    const outcome = storedOutcome(options?.outcome);
    finish(entry, status, outcome, now);
    const sent = pending.map(input => view(insert(input, now)));
    return { message: view(entry), sent };
  };

  const finish = (
    entry: Entry,
    status: TeamMessageStatus,
    outcome: TeamMessageOutcome | undefined,
    now: number,
  ) => {
    const previous = entry.status;
    const token = entry.claimToken;
    const owner = entry.claimedBy;
    entry.status = status;
    entry.updatedAt = now;
    entry.claimedBy = undefined;
    entry.leaseExpiresAt = undefined;
    entry.claimToken = undefined;
    if (outcome) entry.outcome = outcome;
    byMailbox.get(entry.to)?.processing.delete(entry);
    record(entry, previous, status, now, token ? { token, owner } : undefined);
    changed(entry.to);
  };

  return {
    async send(input) {
      return view(insert(validateNew(input), Date.now()));
    },
    async get(messageId) {
      const entry = byId.get(messageId);
      return entry ? view(entry) : undefined;
    },
    async inbox(mailboxId, options) {
      const { status, limit } = inboxOptions(options);
      const out: TeamMessage[] = [];
      for (const entry of byMailbox.get(mailboxId)?.all ?? []) {
        if (status !== "all" && entry.status !== status) continue;
        out.push(view(entry));
        if (out.length === limit) break;
      }
      return out;
    },
    async thread(threadId) {
      return (byThread.get(threadId) ?? []).map(view);
    },
    async claimNext(mailboxId, options) {
      const now = Date.now();
      const leaseMs = leaseOf(options);
      const index = byMailbox.get(mailboxId);
      // Not busy means every processing message of the mailbox has an expired lease: the oldest open one is claimable.
      if (!index || index.busy(now)) return undefined;
      const next = index.firstOpen();
      return next ? take(next, leaseMs, options, now) : undefined;
    },
    async claim(messageId, options) {
      const now = Date.now();
      const leaseMs = leaseOf(options);
      const entry = byId.get(messageId);
      if (!entry || !claimable(entry, now)) return undefined;
      if (indexOf(entry.to).busy(now, entry)) return undefined;
      return take(entry, leaseMs, options, now);
    },
    async renew(messageId, claimToken, leaseMs) {
      const now = Date.now();
      const entry = held(messageId, claimToken);
      if (!entry) return false;
      const ms = leaseOf({ leaseMs: leaseMs ?? DEFAULT_LEASE_MS });
      entry.leaseExpiresAt = now + ms;
      entry.updatedAt = now;
      return true;
    },
    async complete(messageId, claimToken, options) {
      return settle(messageId, claimToken, "completed", options);
    },
    async fail(messageId, claimToken, options) {
      return settle(messageId, claimToken, "failed", options);
    },
    async release(messageId, claimToken) {
      const now = Date.now();
      const entry = held(messageId, claimToken);
      if (!entry) return undefined;
      finish(entry, "pending", undefined, now);
      return view(entry);
    },
    async cancel(messageId, options) {
      const now = Date.now();
      const entry = byId.get(messageId);
      if (!entry) return undefined;
      assertOutcome(options?.outcome);
      const { status } = entry;
      if (status === "processing" ? entry.claimToken !== options?.claimToken : status !== "pending")
        return undefined;
      finish(entry, "cancelled", storedOutcome(options?.outcome), now);
      return view(entry);
    },
    async transitions(messageId) {
      return (byId.get(messageId)?.transitions ?? []).map(transition => ({ ...transition }));
    },
    async watch(mailboxIds, options) {
      const ids = [...new Set(mailboxIds)];
      const watch = createNotifiableWatch({
        ...options,
        onClose: () => {
          for (const id of ids) {
            const set = watchers.get(id);
            set?.delete(watch);
            if (set && !set.size) watchers.delete(id);
          }
        },
      });
      if (watch.closed) return watch;
      for (const id of ids) {
        const set = watchers.get(id) ?? new Set();
        set.add(watch);
        watchers.set(id, set);
      }
      return watch;
    },
  };
}

/**
 * The caller's copy of a stored message: callers may change what they get without touching the store. Keys come in
 * the order every earlier version of this mailbox produced (optional ones only when set).
 */
function view(entry: Entry): TeamMessage {
  const metadata = copyJsonValue(entry.metadata);
  // parentMessageId keeps its place after threadId, and appears only when set.
  const message: TeamMessage = {
    id: entry.id,
    workItemId: entry.workItemId,
    threadId: entry.threadId,
    ...(entry.parentMessageId !== undefined ? { parentMessageId: entry.parentMessageId } : {}),
    from: entry.from,
    to: entry.to,
    kind: entry.kind,
    content: entry.content,
    status: entry.status,
    metadata,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    attempts: entry.attempts,
  };
  if (entry.claimedBy !== undefined) message.claimedBy = entry.claimedBy;
  if (entry.leaseExpiresAt !== undefined) message.leaseExpiresAt = entry.leaseExpiresAt;
  if (entry.outcome) message.outcome = copyJsonValue(entry.outcome);
  return message;
}

function leaseOf(options: ClaimOptions | undefined): number {
  const leaseMs = options?.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isInteger(leaseMs) || leaseMs <= 0) {
    throw new InvalidOptionError(
      `ClaimOptions.leaseMs must be a positive integer, got ${JSON.stringify(leaseMs)}.`,
    );
  }
  return leaseMs;
}

function inboxOptions(options: InboxOptions | undefined): { status: string; limit: number | undefined } {
  const status = options?.status ?? "pending";
  if (!STATUSES.has(status)) {
    throw new InvalidOptionError(
      `inbox(): unknown status ${JSON.stringify(status)}; use pending, processing, completed, failed, cancelled or all.`,
    );
  }
  const limit = options?.limit;
  if (limit !== undefined && (!Number.isInteger(limit) || limit <= 0)) {
    throw new InvalidOptionError(`inbox(): limit must be a positive integer, got ${JSON.stringify(limit)}.`);
  }
  return { status, limit };
}

/** The outcome as stored: checked, then its JSON form, like every other store keeps it (a copy the caller cannot reach). */
function storedOutcome(outcome: TeamMessageOutcome | undefined): TeamMessageOutcome | undefined {
  assertOutcome(outcome);
  return outcome === undefined ? undefined : (toJsonValue(outcome) as TeamMessageOutcome);
}

function assertOutcome(outcome: TeamMessageOutcome | undefined): void {
  if (outcome === undefined) return;
  if (!outcome || typeof outcome !== "object") throw new InvalidOptionError("outcome must be an object.");
  if (outcome.content !== undefined && typeof outcome.content !== "string")
    throw new InvalidOptionError("outcome.content must be a string.");
}

/** A checked new message: its kind defaulted and its metadata normalised to plain JSON (the store's own copy). */
type ValidNewMessage = NewTeamMessage & { kind: TeamMessageKind; metadata: Record<string, unknown> };

/** Checks a new message; throws InvalidOptionError naming what is wrong. Returns a normalised copy. */
export function validateNew(input: NewTeamMessage): ValidNewMessage {
  if (!input || typeof input !== "object") throw new InvalidOptionError("send(): expected a message object.");
  for (const key of ["from", "to"] as const) {
    if (typeof input[key] !== "string" || input[key].trim() === "") {
      throw new InvalidOptionError(
        `send(): "${key}" must be a mailbox id such as "engineering::researcher".`,
      );
    }
  }
  if (typeof input.content !== "string") throw new InvalidOptionError('send(): "content" must be a string.');
  if (input.kind !== undefined && !KINDS.has(input.kind)) {
    throw new InvalidOptionError(
      `send(): unknown kind ${JSON.stringify(input.kind)}; use delegation, message, reply or followup.`,
    );
  }
  let metadata: Record<string, unknown> = {};
  if (input.metadata !== undefined) {
    if (!input.metadata || typeof input.metadata !== "object" || Array.isArray(input.metadata)) {
      throw new InvalidOptionError("send(): metadata must be a plain object.");
    }
    try {
      metadata = toJsonValue(input.metadata) as Record<string, unknown>;
    } catch (error) {
      throw new InvalidOptionError(`send(): metadata must be JSON-serialisable: ${String(error)}`);
    }
  }
  return { ...input, kind: input.kind ?? "message", metadata };
}
