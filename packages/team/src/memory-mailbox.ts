import { randomUUID } from "node:crypto";
import { InvalidOptionError } from "@agent-lattice/core";
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

interface Stored {
  message: TeamMessage;
  claimToken?: string;
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
 */
export function createMemoryMailbox(): TeamMailbox {
  const byId = new Map<string, Stored>();
  /** Every message per recipient mailbox, oldest first (inbox()). */
  const byMailbox = new Map<string, Stored[]>();
  /** The unsettled ones per mailbox, oldest first: claims scan only these. */
  const openByMailbox = new Map<string, Stored[]>();
  const log = new Map<string, TeamMessageTransition[]>();
  /** Open watches per mailbox id: a change wakes them in-process (watch()). */
  const watchers = new Map<string, Set<NotifiableMailboxWatch>>();
  const changed = (mailboxId: string) => {
    for (const watch of watchers.get(mailboxId) ?? []) watch.notify();
  };

  const record = (
    id: string,
    from: TeamMessageStatus | null,
    to: TeamMessageStatus,
    at: number,
    claim?: { token: string; owner: string | undefined },
  ) => {
    const entry: TeamMessageTransition = { messageId: id, from, to, at };
    if (claim) {
      entry.claimToken = claim.token;
      if (claim.owner) entry.owner = claim.owner;
    }
    log.get(id)?.push(entry);
  };

  const insert = (input: NewTeamMessage, now: number): TeamMessage => {
    const message = buildMessage(input, now, id => byId.get(id)?.message);
    const stored: Stored = { message };
    byId.set(message.id, stored);
    for (const index of [byMailbox, openByMailbox]) {
      const list = index.get(message.to) ?? [];
      list.push(stored);
      index.set(message.to, list);
    }
    log.set(message.id, []);
    record(message.id, null, "pending", now);
    changed(message.to);
    return message;
  };

  /** The mailbox's unsettled messages, oldest first; settled ones are dropped as they are met (cheap scans). */
  const live = (mailboxId: string): Stored[] => {
    const list = openByMailbox.get(mailboxId);
    if (!list) return [];
    let write = 0;
    for (const stored of list) if (!TERMINAL_STATUSES.has(stored.message.status)) list[write++] = stored;
    list.length = write;
    return list;
  };

  /** A member works serially: while one message of its mailbox is processing under a live lease, nothing else is claimed. */
  const busy = (list: Stored[], now: number, except?: Stored) =>
    list.some(
      stored =>
        stored !== except &&
        stored.message.status === "processing" &&
        (stored.message.leaseExpiresAt ?? 0) > now,
    );

  const claimable = (stored: Stored, now: number) =>
    stored.message.status === "pending" ||
    (stored.message.status === "processing" && (stored.message.leaseExpiresAt ?? 0) <= now);

  const take = (stored: Stored, options: ClaimOptions | undefined, now: number): ClaimedTeamMessage => {
    const leaseMs = leaseOf(options);
    const owner = options?.owner ?? processOwner();
    const token = randomUUID();
    const previous = stored.message.status;
    stored.claimToken = token;
    stored.message = {
      ...stored.message,
      status: "processing",
      claimedBy: owner,
      leaseExpiresAt: now + leaseMs,
      attempts: stored.message.attempts + 1,
      updatedAt: now,
    };
    record(stored.message.id, previous, "processing", now, { token, owner });
    return { ...copy(stored.message), claimToken: token } as ClaimedTeamMessage;
  };

  // An expired lease is lost only once someone reclaims it (a new token); until then the holder may still settle.
  const held = (messageId: string, claimToken: string): Stored | undefined => {
    const stored = byId.get(messageId);
    return stored?.message.status === "processing" && stored.claimToken === claimToken ? stored : undefined;
  };

  const settle = (
    messageId: string,
    claimToken: string,
    status: "completed" | "failed",
    options: SettleOptions | undefined,
  ): SettledTeamMessage | undefined => {
    const now = Date.now();
    const stored = held(messageId, claimToken);
    if (!stored) return undefined;
    // Validate everything before changing anything: a bad follow-up must not leave a half-settled message.
    const pending = (options?.send ?? []).map(input => validateNew(input));
    assertOutcome(options?.outcome);
    finish(stored, status, options?.outcome, now);
    const sent = pending.map(input => copy(insert(input, now)));
    return { message: copy(stored.message), sent };
  };

  const finish = (
    stored: Stored,
    status: TeamMessageStatus,
    outcome: TeamMessageOutcome | undefined,
    now: number,
  ) => {
    const previous = stored.message.status;
    const token = stored.claimToken;
    const { claimedBy, leaseExpiresAt: _lease, ...rest } = stored.message;
    stored.message = {
      ...rest,
      status,
      updatedAt: now,
      ...(outcome ? { outcome: jsonOutcome(outcome) } : {}),
    };
    stored.claimToken = undefined;
    record(stored.message.id, previous, status, now, token ? { token, owner: claimedBy } : undefined);
    changed(stored.message.to);
  };

  return {
    async send(input) {
      return copy(insert(validateNew(input), Date.now()));
    },
    async get(messageId) {
      const stored = byId.get(messageId);
      return stored ? copy(stored.message) : undefined;
    },
    async inbox(mailboxId, options) {
      const { status, limit } = inboxOptions(options);
      const out: TeamMessage[] = [];
      for (const stored of byMailbox.get(mailboxId) ?? []) {
        if (status !== "all" && stored.message.status !== status) continue;
        out.push(copy(stored.message));
        if (out.length === limit) break;
      }
      return out;
    },
    async thread(threadId) {
      const out: TeamMessage[] = [];
      for (const stored of byId.values())
        if (stored.message.threadId === threadId) out.push(copy(stored.message));
      return out;
    },
    async claimNext(mailboxId, options) {
      const now = Date.now();
      leaseOf(options);
      const list = live(mailboxId);
      if (busy(list, now)) return undefined;
      const next = list.find(stored => claimable(stored, now));
      return next ? take(next, options, now) : undefined;
    },
    async claim(messageId, options) {
      const now = Date.now();
      leaseOf(options);
      const stored = byId.get(messageId);
      if (!stored || !claimable(stored, now)) return undefined;
      if (busy(live(stored.message.to), now, stored)) return undefined;
      return take(stored, options, now);
    },
    async renew(messageId, claimToken, leaseMs) {
      const now = Date.now();
      const stored = held(messageId, claimToken);
      if (!stored) return false;
      const ms = leaseOf({ leaseMs: leaseMs ?? DEFAULT_LEASE_MS });
      stored.message = { ...stored.message, leaseExpiresAt: now + ms, updatedAt: now };
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
      const stored = held(messageId, claimToken);
      if (!stored) return undefined;
      finish(stored, "pending", undefined, now);
      return copy(stored.message);
    },
    async cancel(messageId, options) {
      const now = Date.now();
      const stored = byId.get(messageId);
      if (!stored) return undefined;
      assertOutcome(options?.outcome);
      const { status } = stored.message;
      if (status === "processing" ? stored.claimToken !== options?.claimToken : status !== "pending")
        return undefined;
      finish(stored, "cancelled", options?.outcome, now);
      return copy(stored.message);
    },
    async transitions(messageId) {
      return (log.get(messageId) ?? []).map(entry => ({ ...entry }));
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
 * A caller's copy of a stored message: callers may change what they get without touching the store. Messages are
 * replaced, never mutated, by the mailbox, and everything nested in them is plain JSON (metadata is normalised
 * through JSON at send; outcomes are copied the same way when stored), so a JSON-value copy is exact — and several
 * times cheaper than structuredClone(), which runs every message through V8's serializer.
 */
function copy(message: TeamMessage): TeamMessage {
  const out = { ...message, metadata: copyJson(message.metadata) as Record<string, unknown> };
  if (message.outcome) out.outcome = copyJson(message.outcome) as TeamMessageOutcome;
  return out;
}

/** Deep copy of a JSON value (objects, arrays, primitives). */
function copyJson(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyJson((value as Record<string, unknown>)[key]);
  return out;
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

/** The outcome as stored: its JSON form, like every other store keeps it (a copy the caller cannot reach). */
function jsonOutcome(outcome: TeamMessageOutcome): TeamMessageOutcome {
  return JSON.parse(JSON.stringify(outcome));
}

function assertOutcome(outcome: TeamMessageOutcome | undefined): void {
  if (outcome === undefined) return;
  if (!outcome || typeof outcome !== "object") throw new InvalidOptionError("outcome must be an object.");
  if (outcome.content !== undefined && typeof outcome.content !== "string")
    throw new InvalidOptionError("outcome.content must be a string.");
}

/** Checks a new message; throws InvalidOptionError naming what is wrong. Returns a normalised copy. */
export function validateNew(input: NewTeamMessage): NewTeamMessage {
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
      metadata = JSON.parse(JSON.stringify(input.metadata));
    } catch (error) {
      throw new InvalidOptionError(`send(): metadata must be JSON-serialisable: ${String(error)}`);
    }
  }
  return { ...input, metadata };
}

function buildMessage(
  input: NewTeamMessage,
  now: number,
  lookup: (id: string) => TeamMessage | undefined,
): TeamMessage {
  const id = `msg_${randomUUID()}`;
  const parent = input.parentMessageId ? lookup(input.parentMessageId) : undefined;
  const kind = input.kind ?? "message";
  const answers = kind === "reply" || kind === "followup";
  return {
    id,
    workItemId: input.workItemId ?? (answers && parent ? parent.workItemId : `wi_${randomUUID()}`),
    threadId: input.threadId ?? parent?.threadId ?? `th_${randomUUID()}`,
    ...(input.parentMessageId ? { parentMessageId: input.parentMessageId } : {}),
    from: input.from,
    to: input.to,
    kind,
    content: input.content,
    status: "pending",
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
    attempts: 0,
  };
}
