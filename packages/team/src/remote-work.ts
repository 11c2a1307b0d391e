import type { ReportedUsage, SDKMessage } from "@agent-lattice/core";
import { TERMINAL_STATUSES, type TeamMailboxWatch, type TeamMessage } from "./mailbox.js";
import { isPermanentFailure, isTransientFailure, pause } from "./mailbox-failures.js";
import { openMailboxWatch } from "./mailbox-watch.js";
import type { TeamContext, TeamEvents } from "./team-context.js";
import type { WorkItemOutcome, WorkStatus } from "./work-item.js";

/**
 * Consecutive failed reads of the mailbox a waiting lead tolerates before its run fails, for failures the mailbox
 * does not mark (`transient`). Transient ones are waited out for as long as the run goes on; permanent ones fail it
 * at once.
 */
const MAX_READ_FAILURES = 20;

export interface RemoteWorkInput {
  team: TeamContext;
  events: TeamEvents;
  /** Delegations stored by this run, in handoff order. */
  messages: TeamMessage[];
  /** The run stopped (abort or interrupt): stop waiting, cancel what no worker has started. */
  signal: AbortSignal;
  emit: (message: SDKMessage) => Promise<void>;
  /** Re-check this often even without a wake-up (a mailbox without watch(), a missed notification). */
  recheckMs: number;
}

/**
 * The lead's side of remote execution: waits until workers elsewhere settled each delegation (woken by the
 * mailbox's watch() on the lead's mailbox, where replies land, and on the members' mailboxes, where settles
 * happen), streams each terminal team_message event, and turns the results into the outcomes a local run would have
 * produced — the reply (or failure report) as content, the member's usage from the reply's metadata, the upstream
 * messages to acknowledge. Undefined when the run stopped first: messages no worker had claimed are cancelled;
 * those already running elsewhere finish there and their replies stay in the lead's mailbox. A store that is
 * unreachable for a while (transient failures) only delays it: opening the watch and every read are retried.
 */
export async function awaitRemoteWork(input: RemoteWorkInput): Promise<WorkItemOutcome[] | undefined> {
  const { team, events, messages, signal } = input;
  const settled = new Map<string, TeamMessage>();
  const watched = [team.leadMailboxId, ...new Set(messages.map(message => message.to))];
  let watch: TeamMailboxWatch | undefined;
  try {
    let failures = 0;
    let unmarked = 0;
    while (!signal.aborted) {
      try {
        // Watching before checking: a settle after this point wakes the wait below.
        watch ??= await openMailboxWatch(team.mailbox, watched, { signal });
        for (const message of messages) {
          if (settled.has(message.id)) continue;
          const current = await team.mailbox.get(message.id);
          if (!current || !TERMINAL_STATUSES.has(current.status)) continue;
          settled.set(message.id, current);
          await events.message(current.status as WorkStatus, current, input.emit);
        }
        failures = 0;
        unmarked = 0;
      } catch (error) {
        // The store is unreachable for a while (a dropped connection, a database restart): keep waiting.
        failures += 1;
        if (isPermanentFailure(error)) throw error;
        if (!isTransientFailure(error) && ++unmarked > MAX_READ_FAILURES) throw error;
      }
      if (settled.size === messages.length) break;
      const timeoutMs = input.recheckMs * (failures ? 4 : 1);
      if (watch) await watch.wait({ timeoutMs, signal });
      else await pause(timeoutMs, signal);
    }
  } finally {
    await watch?.close();
  }

  if (settled.size < messages.length) {
    for (const message of messages) {
      if (settled.has(message.id)) continue;
      const cancelled = await team.mailbox.cancel(message.id, {
        outcome: {
          content: "Cancelled before a worker started it: the team run stopped.",
          error: { code: "aborted", message: "The team run stopped before a worker claimed this message." },
        },
      });
      if (cancelled) await events.message("cancelled", cancelled, input.emit);
    }
    return undefined;
  }

  // The replies and diagnostics the workers sent upstream, by the message they answer.
  const ids = new Set(messages.map(message => message.id));
  const upstream = new Map<string, TeamMessage[]>();
  const pending = await retryTransient(
    () => team.mailbox.inbox(team.leadMailboxId, { status: "pending" }),
    signal,
    input.recheckMs * 4,
  );
  for (const message of pending) {
    if (!message.parentMessageId || !ids.has(message.parentMessageId)) continue;
    const list = upstream.get(message.parentMessageId) ?? [];
    list.push(message);
    upstream.set(message.parentMessageId, list);
  }
  return messages.map(original => {
    const message = settled.get(original.id)!;
    const sent = upstream.get(message.id) ?? [];
    const reply = sent.find(entry => entry.kind === "reply") ?? sent[0];
    const status = message.status as WorkStatus;
    const text = message.outcome?.content ?? reply?.content ?? "";
    const member = typeof reply?.metadata.member === "string" ? reply.metadata.member : message.to;
    return {
      message,
      status,
      content: status === "cancelled" ? `cancelled: ${member}'s work was cancelled. ${text}`.trim() : text,
      isError: status !== "completed",
      usage: reply?.metadata.usage as ReportedUsage | undefined,
      ...(reply?.metadata.toolErrors
        ? { toolErrors: reply.metadata.toolErrors as Record<string, number> }
        : {}),
      sent,
      abort: undefined,
    };
  });
}

/** Calls `read` until it succeeds, waiting out transient failures (not past the run's end: then it throws). */
async function retryTransient<T>(read: () => Promise<T>, signal: AbortSignal, delayMs: number): Promise<T> {
  while (true) {
    try {
      return await read();
    } catch (error) {
      if (!isTransientFailure(error) || signal.aborted) throw error;
      await pause(delayMs, signal);
    }
  }
}
