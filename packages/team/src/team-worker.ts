import { randomUUID } from "node:crypto";
import type { ContextTracer, SDKMessage } from "@agent-lattice/core";
import { AbortError, InvalidOptionError } from "@agent-lattice/core";
import { assertKnownOptions, assertPositiveInteger, RunTrace } from "@agent-lattice/core/internal";
import {
  DEFAULT_LEASE_MS,
  missingMailboxMethods,
  type TeamMailbox,
  type TeamMailboxWatch,
  type TeamMessage,
} from "./mailbox.js";
import { failureBackoffMs, isPermanentFailure, pause } from "./mailbox-failures.js";
import { openMailboxWatch } from "./mailbox-watch.js";
import { processOwner } from "./owner.js";
import { WorkScheduler } from "./scheduler.js";
import { sharedController } from "./shared-signal.js";
import { assertDistinctMembers, buildTeamContext, isTeamMember, resolveMembers, type Team } from "./team.js";
import type { ResolvedMember, TeamContext } from "./team-context.js";
import { TeamEvents } from "./team-context.js";
import { type TeamMember, type TeamMemberOptions, teamMember } from "./team-member.js";
import { internalsOf } from "./team-runner.js";
import { recheckMs, runClaimedWorkItem, type WorkItemInput, type WorkSettings } from "./work-item.js";

export interface TeamWorkerOptions {
  /**
   * The team whose members this worker runs: a team made with createTeam() in this process (its lead never runs
   * here). Or give `name` and `members` instead — the same declarations the lead's process uses — and no lead.
   */
  team?: Team;
  /** The team's name (its mailbox ids are `<name>::<member>`), when no `team` is given. */
  name?: string;
  /** The team's members, when no `team` is given. */
  members?: Array<TeamMember | TeamMemberOptions>;
  /** The mailbox the lead's process shares (PostgreSQL across machines, SQLite on one). Default: the team's. */
  mailbox?: TeamMailbox;
  /** Serve only these members (by name), e.g. to spread members over different worker pools. Default: all. */
  serve?: string[];
  /** Stops the worker: nothing new is claimed; running work gets `shutdownGraceMs` to finish, then is released. */
  signal?: AbortSignal;
  /** Work items run at once, across different members (each member stays serial). Default: one per served member. */
  maxConcurrentWorkItems?: number;
  /** Lease of each claim (default 60 000 ms), renewed every third of it while the member works. */
  leaseMs?: number;
  /** Recorded as claimedBy; default an id of this process (host:pid:random). */
  owner?: string;
  /**
   * After the signal: how long running work may still finish (default 30 000 ms). What is still running then is
   * stopped and its message released — pending again, for another worker to run from the start. 0 releases at once.
   */
  shutdownGraceMs?: number;
  /** Observes the members' runs (they nest under the lead's team run when the lead traced it). */
  tracer?: ContextTracer;
  /** Host data for the members' tool handlers (as QueryOptions.context). */
  context?: unknown;
  /** Receives team_message, team_agent and nested agent_message events as work progresses (awaited). */
  onEvent?: (event: SDKMessage) => void | Promise<void>;
  /**
   * A mailbox call failed (the database went away and the mailbox's own retries gave up, or a member's work item
   * failed to settle): the worker keeps going, retrying with backoff (250 ms doubling to 30 s, jittered), and
   * reports each failure here. Not called for a permanent failure (an error with `transient: false`, e.g. a refused
   * login or a missing schema): the worker stops and rejects with it. Default: console.warn.
   */
  onError?: (error: unknown) => void;
}

export interface TeamWorkerResult {
  /** Messages this worker claimed and ran to an end. */
  processed: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** Handed back to pending at shutdown (the grace period ran out). */
  released: number;
  /** Claims lost to another worker (this worker's lease expired while it ran). */
  lost: number;
  /** The settled messages, in the order they finished. */
  messages: TeamMessage[];
}

const KEYS: ReadonlySet<string> = new Set([
  "team",
  "name",
  "members",
  "mailbox",
  "serve",
  "signal",
  "maxConcurrentWorkItems",
  "leaseMs",
  "owner",
  "shutdownGraceMs",
  "tracer",
  "context",
  "onEvent",
  "onError",
]);
const TEAM_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Serves a team's member mailboxes from this process until `signal` aborts: claims the next message of each
 * served member (claimNext, one at a time per member, up to maxConcurrentWorkItems at once), runs the member on it
 * exactly as the team runtime does (mailbox tools, output contracts, failure isolation, lease renewal) and settles it
 * with its reply upstream. When nothing is claimable it sleeps on the mailbox's watch() — LISTEN/NOTIFY on PostgreSQL,
 * polling with backoff on SQLite, an in-process event in memory — and re-checks at least every quarter lease, so work
 * left by a crashed worker is picked up once its lease expires.
 *
 * Pair it with a lead whose runner has `execution: "remote"`: the lead stores handoffs and waits for their reports
 * while any number of worker processes, on any machines sharing the mailbox, run the members.
 *
 * Resolves when the worker has stopped, with what it did. A worker never stops for a transient failure (a dropped
 * connection, a database restart): it retries, at start too (see `onError`). It rejects on invalid options, and on a
 * permanent mailbox failure (an error with `transient: false`: authentication, a missing schema, permissions) —
 * after winding down as on the signal.
 */
export async function runTeamWorker(options: TeamWorkerOptions): Promise<TeamWorkerResult> {
  const { team, served } = workerTeam(options);
  const maxConcurrent = options.maxConcurrentWorkItems ?? Math.max(1, served.length);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const graceMs = options.shutdownGraceMs ?? 30_000;
  const stop = options.signal ?? new AbortController().signal;
  const onError = options.onError ?? ((error: unknown) => console.warn("runTeamWorker():", error));
  const release = new AbortController();
  const never = sharedController().signal;
  const trace = new RunTrace(options.tracer ? [options.tracer] : [], {
    sessionId: team.sessionId,
    source: team.name,
  });
  const events = new TeamEvents(team, trace);
  const emit = async (event: SDKMessage) => {
    await options.onEvent?.(event);
  };
  const settings: WorkSettings = {
    scheduler: new WorkScheduler(maxConcurrent),
    owner: options.owner ?? processOwner(),
    leaseMs,
    execution: "local",
  };
  const result: TeamWorkerResult = {
    processed: 0,
    completed: 0,
    failed: 0,
    cancelled: 0,
    released: 0,
    lost: 0,
    messages: [],
  };
  const running = new Map<string, Promise<void>>();
  let finished = new AbortController();

  const runOne = async (member: ResolvedMember, claimed: Awaited<ReturnType<TeamMailbox["claimNext"]>>) => {
    if (!claimed) return;
    const runId = typeof claimed.metadata.team_run_id === "string" ? claimed.metadata.team_run_id : undefined;
    const toolUseId =
      typeof claimed.metadata.tool_use_id === "string"
        ? claimed.metadata.tool_use_id
        : `team_worker_${claimed.id}`;
    const input: WorkItemInput = {
      team,
      events,
      settings,
      member,
      message: claimed,
      claim: async () => claimed,
      // A delegation the lead traced nests under the lead's team run, so one invocation stays one trace tree.
      parent: {
        runId: runId ?? trace.runId,
        toolUseId,
        tracer: options.tracer,
        requestTimeoutMs: undefined,
        context: options.context,
      },
      emit,
      signal: release.signal,
      interrupted: never,
      release: release.signal,
    };
    await events.message("claimed", claimed, emit);
    const outcome = await runClaimedWorkItem(input, claimed);
    if (outcome.status === "released") result.released += 1;
    else if (outcome.status === "lost") result.lost += 1;
    else if (outcome.status !== "none") {
      result.processed += 1;
      result[outcome.status] += 1;
      if (outcome.message) result.messages.push(outcome.message);
    }
  };

  let failures = 0;
  // A permanent failure stops the worker as its signal would, and is what it rejects with.
  let fatal: { error: unknown } | undefined;
  const halt = new AbortController();
  const stopped = AbortSignal.any([stop, halt.signal]);
  const fail = (error: unknown) => {
    if (!isPermanentFailure(error)) return onError(error);
    fatal ??= { error };
    halt.abort(error);
  };
  let watch: TeamMailboxWatch | undefined;
  try {
    if (trace.enabled) {
      await trace.emit("run_start", { model: "team_worker", tools: served.map(member => member.name) });
    }
    while (!stopped.aborted) {
      let failed = false;
      if (!watch) {
        // Inside the loop, so a watch that cannot be opened (the database is down) is retried like a claim.
        // Watching before claiming: a change after this point wakes the wait below.
        try {
          watch = await openMailboxWatch(
            team.mailbox,
            served.map(member => member.mailboxId),
            { signal: stopped },
          );
        } catch (error) {
          failed = true;
          fail(error);
        }
      }
      for (const member of served) {
        if (stopped.aborted || running.size >= maxConcurrent) break;
        if (running.has(member.mailboxId)) continue;
        let claimed: Awaited<ReturnType<TeamMailbox["claimNext"]>>;
        try {
          claimed = await team.mailbox.claimNext(member.mailboxId, { owner: settings.owner, leaseMs });
        } catch (error) {
          failed = true;
          fail(error);
          break;
        }
        if (!claimed) continue;
        const work = runOne(member, claimed)
          .catch(fail)
          .finally(() => {
            running.delete(member.mailboxId);
            finished.abort();
          });
        running.set(member.mailboxId, work);
      }
      failures = failed ? failures + 1 : 0;
      if (stopped.aborted) break;
      // Sleep until a served mailbox changes, a running item finishes (a member is free again) or a re-check is due.
      const wake = { timeoutMs: failed ? failureBackoffMs(failures) : recheckMs(leaseMs) };
      const signal = AbortSignal.any([stopped, finished.signal]);
      if (watch) await watch.wait({ ...wake, signal });
      else await pause(wake.timeoutMs, signal);
      if (finished.signal.aborted) finished = new AbortController();
    }
  } finally {
    // Graceful shutdown: running work may finish within the grace period; then it is stopped and released.
    const timer = setTimeout(
      () => release.abort(new AbortError("The team worker is shutting down; its claims are released.")),
      graceMs,
    );
    await Promise.allSettled([...running.values()]);
    clearTimeout(timer);
    await watch?.close();
  }
  if (fatal) throw fatal.error;
  return result;
}

function workerTeam(options: TeamWorkerOptions): { team: TeamContext; served: ResolvedMember[] } {
  if (!options || typeof options !== "object") {
    throw new InvalidOptionError(
      "runTeamWorker(): expected { team, mailbox?, signal } or { name, members, mailbox, signal }.",
    );
  }
  assertKnownOptions(options, KEYS, "runTeamWorker()");
  assertPositiveInteger(options.maxConcurrentWorkItems, "runTeamWorker(): maxConcurrentWorkItems");
  assertPositiveInteger(options.leaseMs, "runTeamWorker(): leaseMs");
  const grace = options.shutdownGraceMs;
  if (grace !== undefined && (!Number.isInteger(grace) || grace < 0)) {
    throw new InvalidOptionError(
      `runTeamWorker(): shutdownGraceMs must be a non-negative integer, got ${JSON.stringify(grace)}.`,
    );
  }
  if (options.owner !== undefined && (typeof options.owner !== "string" || options.owner === "")) {
    throw new InvalidOptionError("runTeamWorker(): owner must be a non-empty string.");
  }
  for (const key of ["onEvent", "onError"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function") {
      throw new InvalidOptionError(`runTeamWorker(): ${key} must be a function.`);
    }
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new InvalidOptionError("runTeamWorker(): signal must be an AbortSignal.");
  }
  if (options.mailbox !== undefined && missingMailboxMethods(options.mailbox).length) {
    throw new InvalidOptionError(
      `runTeamWorker(): mailbox must implement the TeamMailbox port; it lacks ${missingMailboxMethods(options.mailbox).join(", ")}.`,
    );
  }

  let base: TeamContext;
  if (options.team !== undefined) {
    if (options.name !== undefined || options.members !== undefined) {
      throw new InvalidOptionError(
        "runTeamWorker(): give either `team` or `name` + `members`, not both (the team already has them).",
      );
    }
    const internals = internalsOf(options.team);
    if (!internals) {
      throw new InvalidOptionError("runTeamWorker(): `team` must be a team made by createTeam().");
    }
    base = internals.context;
  } else {
    const { name, members, mailbox } = options;
    if (typeof name !== "string" || !TEAM_NAME.test(name)) {
      throw new InvalidOptionError(
        `runTeamWorker(): without a team, name must be the team's name (1–64 letters, digits, "_", "-" or "."), got ${JSON.stringify(name)}.`,
      );
    }
    if (!Array.isArray(members) || !members.length) {
      throw new InvalidOptionError(
        `runTeamWorker("${name}"): members must be the team's members, e.g. [teamMember({ name, role, agent })].`,
      );
    }
    if (!mailbox) {
      throw new InvalidOptionError(
        `runTeamWorker("${name}"): without a team, pass the mailbox the lead's process shares (e.g. createPostgresMailbox()).`,
      );
    }
    const normalised = members.map(member => (isTeamMember(member) ? member : teamMember(member)));
    assertDistinctMembers(name, normalised, undefined);
    const { resolved } = resolveMembers(name, normalised);
    base = buildTeamContext(name, mailbox, resolved, randomUUID());
  }
  const team: TeamContext = options.mailbox ? { ...base, mailbox: options.mailbox } : base;

  let served = [...team.members];
  if (options.serve !== undefined) {
    if (!Array.isArray(options.serve) || !options.serve.length) {
      throw new InvalidOptionError("runTeamWorker(): serve must be a non-empty array of member names.");
    }
    served = options.serve.map(name => {
      const member = team.memberByName(name);
      if (!member) {
        throw new InvalidOptionError(
          `runTeamWorker(): team "${team.name}" has no member "${name}" to serve; its members are ${team.members.map(m => m.name).join(", ")}.`,
        );
      }
      return member;
    });
  }
  if (!served.length) {
    throw new InvalidOptionError(`runTeamWorker(): team "${team.name}" has no members to serve.`);
  }
  return { team, served };
}
