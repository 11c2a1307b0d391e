import type {
  AgentLike,
  ContextTracer,
  PromptInput,
  QueryOptions,
  SDKMessage,
  SDKResultMessage,
} from "@agent-lattice/core";
import { AbortError, InvalidOptionError } from "@agent-lattice/core";
import {
  addUsage,
  assertKnownOptions,
  assertPositiveInteger,
  errorData,
  RunTrace,
} from "@agent-lattice/core/internal";
import { TeamError } from "./errors.js";
import { DEFAULT_LEASE_MS, type TeamMessage } from "./mailbox.js";
import { processOwner } from "./owner.js";
import { WorkScheduler } from "./scheduler.js";
import { sharedController } from "./shared-signal.js";
import type { TeamContext } from "./team-context.js";
import { TeamEvents } from "./team-context.js";
import { type ObserveHandler, TeamRun } from "./team-run.js";
import { runWorkItem, type WorkItemOutcome, type WorkSettings } from "./work-item.js";

/** How a runner drives a team's mailbox work. */
export interface TeamRunnerOptions {
  /**
   * Work items (member runs) that may run at the same time, across different member mailboxes; work for one
   * mailbox stays serial. A positive integer; default 1 (serial).
   */
  maxConcurrentWorkItems?: number;
  /**
   * Lease of each claim in milliseconds (default 60 000). The runner renews it every third of that while the
   * member works; if this process dies, another one reclaims the message once the lease has expired.
   */
  leaseMs?: number;
  /** Recorded as claimedBy on claims; default an id of this process (host:pid:random). */
  owner?: string;
  /** Serves mode "observe" of member tools; without it, observe answers unsupported_mode. */
  observe?: ObserveHandler;
  /**
   * Where members run. "local" (default): this runner runs them, in this process. "remote": worker processes
   * serve the members' mailboxes (runTeamWorker() on a mailbox they share, e.g. PostgreSQL); this runner stores
   * each ask and handoff, waits until a worker settled it (woken by the mailbox's watch()), and reports its result
   * to the lead as if it had run here. Members' own events (team_agent, agent_message) then stream in the workers.
   */
  execution?: "local" | "remote";
}

export interface CreateTeamRunnerOptions extends TeamRunnerOptions {
  /** The team to drive (from createTeam()). */
  team: TeamLike;
}

/** What a runner needs from a team: the team's internals, reachable from the Team object. */
export interface TeamLike {
  readonly name: string;
}

export interface TeamDrainOptions {
  /** Passes over the members; each pass takes at most one message per member. Default 10. */
  maxRounds?: number;
  /** Messages to process at most. Default 100. */
  maxMessages?: number;
  signal?: AbortSignal;
  /** Observes the drain: team events and the members' runs, nested under one team run. */
  tracer?: ContextTracer;
  /** Host data for the members' tool handlers (as QueryOptions.context). */
  context?: unknown;
  /** Receives team_message, team_agent and agent_message events as the work progresses (awaited: back-pressure). */
  onEvent?: (event: SDKMessage) => void | Promise<void>;
}

export interface TeamDrainResult {
  /** Rounds that processed at least one message. */
  rounds: number;
  /** Messages claimed and settled (completed + failed + cancelled). */
  processed: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** The settled messages, in the order they finished. */
  messages: TeamMessage[];
  /** Why it stopped: nothing left to claim, or a limit, or the signal. */
  stopped: "idle" | "max_rounds" | "max_messages" | "aborted";
}

const RUNNER_KEYS: ReadonlySet<string> = new Set([
  "maxConcurrentWorkItems",
  "leaseMs",
  "owner",
  "observe",
  "execution",
]);
const DRAIN_KEYS: ReadonlySet<string> = new Set([
  "maxRounds",
  "maxMessages",
  "signal",
  "tracer",
  "context",
  "onEvent",
]);

/** The team internals a runner works with; registered by createTeam(). */
export interface TeamInternals {
  context: TeamContext;
  lead: AgentLike<any, any>;
  leadModel: string | undefined;
}

const registry = new WeakMap<object, TeamInternals>();

export function registerTeam(team: object, internals: TeamInternals): void {
  registry.set(team, internals);
}

/** The internals of a team made by createTeam() (undefined for anything else). */
export function internalsOf(team: unknown): TeamInternals | undefined {
  return team && typeof team === "object" ? registry.get(team) : undefined;
}

export function validateRunnerOptions(options: TeamRunnerOptions | undefined, label: string): void {
  if (options === undefined) return;
  assertKnownOptions(options, RUNNER_KEYS, label);
  assertPositiveInteger(options.maxConcurrentWorkItems, `${label}.maxConcurrentWorkItems`);
  assertPositiveInteger(options.leaseMs, `${label}.leaseMs`);
  if (options.owner !== undefined && (typeof options.owner !== "string" || options.owner === "")) {
    throw new InvalidOptionError(`${label}.owner must be a non-empty string.`);
  }
  if (options.observe !== undefined && typeof options.observe !== "function") {
    throw new InvalidOptionError(`${label}.observe must be a function (request, extra) => ToolResult.`);
  }
  if (options.execution !== undefined && options.execution !== "local" && options.execution !== "remote") {
    throw new InvalidOptionError(
      `${label}.execution must be "local" (members run in this process) or "remote" (worker processes run them with runTeamWorker()); got ${JSON.stringify(options.execution)}.`,
    );
  }
}

/**
 * Drives a team's mailbox runtime: team.query() and team.prompt() run through the team's own runner (built from
 * createTeam's `runner` option); createTeamRunner() makes another one for the same team with its own limits.
 * A runner is an AgentLike: interrupt() goes to the team's lead.
 */
export function createTeamRunner(options: CreateTeamRunnerOptions): TeamRunner {
  if (!options || typeof options !== "object") {
    throw new InvalidOptionError("createTeamRunner(): expected { team, maxConcurrentWorkItems?, leaseMs? }.");
  }
  const { team, ...rest } = options;
  const internals = team ? registry.get(team) : undefined;
  if (!internals) {
    throw new InvalidOptionError(
      "createTeamRunner(): `team` must be a team made by createTeam(), e.g. createTeamRunner({ team, maxConcurrentWorkItems: 4 }).",
    );
  }
  validateRunnerOptions(rest, "createTeamRunner()");
  return new TeamRunner(internals, rest);
}

/** Builds a team's own runner (createTeam() already validated the options). */
export function runnerFor(team: object, options: TeamRunnerOptions | undefined): TeamRunner {
  return new TeamRunner(registry.get(team)!, options ?? {});
}

export class TeamRunner implements AgentLike<any>, AsyncDisposable {
  readonly maxConcurrentWorkItems: number;
  readonly leaseMs: number;
  /** Where members run: "local" (this process) or "remote" (worker processes; see TeamRunnerOptions.execution). */
  readonly execution: "local" | "remote";
  readonly #internals: TeamInternals;
  readonly #settings: WorkSettings;
  readonly #observe: ObserveHandler | undefined;
  readonly #runs = new Set<TeamRun>();
  readonly #drains = new Set<AbortController>();
  #closing: Promise<void> | undefined;

  /** @internal Use createTeamRunner() or createTeam(). */
  constructor(internals: TeamInternals, options: TeamRunnerOptions) {
    this.#internals = internals;
    this.maxConcurrentWorkItems = options.maxConcurrentWorkItems ?? 1;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.execution = options.execution ?? "local";
    this.#observe = options.observe;
    this.#settings = {
      scheduler: new WorkScheduler(this.maxConcurrentWorkItems),
      owner: options.owner ?? processOwner(),
      leaseMs: this.leaseMs,
      execution: this.execution,
    };
  }

  get name(): string {
    return this.#internals.context.name;
  }

  /**
   * Runs the lead on `prompt` under the team runtime and yields the lead's SDK messages, team_message and
   * team_agent events and the members' nested agent_message events, with back-pressure; the last message is the
   * lead's result (its usage includes the handed-off members' usage).
   */
  query(prompt: PromptInput, options: QueryOptions<any> = {}): AsyncGenerator<SDKMessage, void, undefined> {
    return this.#run(prompt, options, true);
  }

  /**
   * Runs the team to the end and returns the final result. Nobody reads the run's stream here, so its team events
   * and members' nested messages are not delivered at all (they still reach the tracer): the same run as query()'s,
   * without a consumer to hand each event to.
   */
  async prompt(prompt: PromptInput, options: QueryOptions<any> = {}): Promise<SDKResultMessage> {
    let result: SDKResultMessage | undefined;
    for await (const message of this.#run(prompt, options, false))
      if (message.type === "result") result = message;
    return result!;
  }

  /** One team invocation; `streaming` false (prompt()): the result is all it yields. */
  async *#run(
    prompt: PromptInput,
    options: QueryOptions<any>,
    streaming: boolean,
  ): AsyncGenerator<SDKMessage, void, undefined> {
    if (this.#closing)
      throw new TeamError("team_closed", `Team "${this.name}" was closed; create a new team to run again.`);
    if (options && (options as QueryOptions).runtime !== undefined) {
      throw new InvalidOptionError(
        "QueryOptions.runtime: a team hosts its own runtime, so team.query() does not take one. Drop the option.",
      );
    }
    const { context: team, lead, leadModel } = this.#internals;
    const trace = new RunTrace(options.tracer ? [options.tracer] : [], {
      sessionId: team.sessionId,
      source: team.name,
      parentRunId: options.parentRunId,
      parentToolUseId: options.parentToolUseId,
    });
    const run = new TeamRun(team, this.#settings, options, trace, this.#observe, streaming);
    const { parentToolUseId: _tool, parentRunId: _run, ...inherited } = options;
    const leadOptions: QueryOptions<any> = {
      ...inherited,
      signal: run.signal,
      runtime: run,
      // One team invocation is one trace tree: the lead's run hangs under the team's run.
      ...(trace.enabled ? { parentRunId: trace.runId } : pick(options)),
    };
    this.#runs.add(run);
    let result: SDKResultMessage | undefined;
    let finished = false;
    const steps = lead.query(prompt, leadOptions);
    try {
      if (trace.enabled) {
        await trace.emit("run_start", {
          model: leadModel ?? "team",
          tools: team.members.map(member => member.name),
        });
        await trace.emit("user_message", { content: prompt, origin: "prompt" });
      }
      while (true) {
        // While the lead is paused (a tool batch, a turn boundary), the run's own events stream from its channel.
        const step = streaming ? yield* run.channel.drainUntil(steps.next()) : await steps.next();
        if (step.done) break;
        if (step.value.type === "result") result = step.value;
        else if (streaming) yield step.value;
      }
      // Wind-down: work still settling (cancellations after an abort or interrupt) streams too.
      if (streaming) yield* run.channel.drainUntil(run.settle());
      else await run.settle();
      finished = true;
    } catch (error) {
      if (trace.enabled) await trace.emit("error", { error: errorData(error), fatal: true }).catch(() => {});
      throw error;
    } finally {
      if (!finished) {
        run.abort(new AbortError("The team query ended before the lead finished."));
        // Let the lead wind down (it sees the abort) so the agent is free for its next query.
        await steps.return(undefined).catch(() => {});
      }
      await run.close();
      this.#runs.delete(run);
    }
    for (const held of run.takeBuffered()) yield held;
    if (!result) return;
    const final: SDKResultMessage = { ...result, usage: addUsage({ ...result.usage }, run.handoffUsage) };
    if (trace.enabled) {
      const { type: _type, session_id: _session, error, ...rest } = final;
      await trace.emit("result", { ...rest, ...(error ? { error: errorData(error) } : {}) });
    }
    yield final;
  }

  /** Interrupts the lead's in-flight query (members it waits for are interrupted too); false when idle. */
  interrupt(): boolean {
    return this.#internals.lead.interrupt();
  }

  /**
   * Advances work already routed to member mailboxes: each round claims the next message of every member's own
   * mailbox and runs that member on it (up to maxConcurrentWorkItems at once), until nothing is left or a limit is
   * reached. It never re-routes. Replies go to each message's sender; those addressed to the lead stay pending
   * in the lead's mailbox for the host (team.mailbox.inbox(team.leadMailboxId)).
   */
  async drain(options: TeamDrainOptions = {}): Promise<TeamDrainResult> {
    if (this.#closing)
      throw new TeamError("team_closed", `Team "${this.name}" was closed; create a new team to drain.`);
    assertKnownOptions(options, DRAIN_KEYS, "team.drain()");
    assertPositiveInteger(options.maxRounds, "team.drain(): maxRounds");
    assertPositiveInteger(options.maxMessages, "team.drain(): maxMessages");
    if (options.onEvent !== undefined && typeof options.onEvent !== "function") {
      throw new InvalidOptionError("team.drain(): onEvent must be a function (event) => void.");
    }
    const maxRounds = options.maxRounds ?? 10;
    let budget = options.maxMessages ?? 100;
    const team = this.#internals.context;
    const stopper = new AbortController();
    this.#drains.add(stopper);
    const signal = options.signal ? AbortSignal.any([options.signal, stopper.signal]) : stopper.signal;
    const trace = new RunTrace(options.tracer ? [options.tracer] : [], {
      sessionId: team.sessionId,
      source: team.name,
    });
    const events = new TeamEvents(team, trace);
    const onEvent = options.onEvent;
    const emit = async (event: SDKMessage) => {
      await onEvent?.(event);
    };
    const interrupted = sharedController().signal;
    const result: TeamDrainResult = {
      rounds: 0,
      processed: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
      messages: [],
      stopped: "max_rounds",
    };
    try {
      if (trace.enabled)
        await trace.emit("run_start", { model: this.#internals.leadModel ?? "team", tools: [] });
      for (let round = 1; round <= maxRounds; round++) {
        if (signal.aborted) {
          result.stopped = "aborted";
          break;
        }
        const attempts: Array<Promise<WorkItemOutcome>> = [];
        for (const member of team.members) {
          if (budget <= 0) break;
          budget -= 1;
          attempts.push(
            runWorkItem({
              team,
              events,
              settings: this.#settings,
              member,
              message: undefined,
              claim: () =>
                team.mailbox.claimNext(member.mailboxId, {
                  owner: this.#settings.owner,
                  leaseMs: this.leaseMs,
                }),
              parent: {
                runId: trace.runId,
                toolUseId: `team_drain_${member.name}_${round}`,
                tracer: options.tracer,
                requestTimeoutMs: undefined,
                context: options.context,
              },
              emit,
              signal,
              interrupted,
            }),
          );
        }
        const outcomes = await Promise.all(attempts);
        let worked = 0;
        for (const outcome of outcomes) {
          if (outcome.status === "none" || !outcome.message) {
            budget += 1;
            continue;
          }
          worked += 1;
          if (outcome.status === "lost" || outcome.status === "released") continue;
          result.processed += 1;
          result[outcome.status] += 1;
          result.messages.push(outcome.message);
        }
        if (worked) result.rounds += 1;
        if (outcomes.some(outcome => outcome.abort) || signal.aborted) {
          result.stopped = "aborted";
          break;
        }
        if (!worked) {
          result.stopped = "idle";
          break;
        }
        if (budget <= 0) {
          result.stopped = "max_messages";
          break;
        }
      }
      if (trace.enabled) {
        await trace.emit("result", {
          subtype: result.stopped === "aborted" ? "error_abort" : "success",
          is_error: result.stopped === "aborted",
          result: JSON.stringify({ ...result, messages: result.messages.map(message => message.id) }),
          usage: {
            input_tokens: 0,
            output_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
          stop_reason: null,
          num_turns: 0,
          duration_ms: 0,
        });
      }
      return result;
    } finally {
      this.#drains.delete(stopper);
    }
  }

  /**
   * Stops the runner: running team queries and drains are aborted (their current and queued work is cancelled)
   * and awaited. Idempotent; later query()/drain() calls throw TeamError("team_closed").
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const drain of this.#drains) drain.abort(new AbortError("The team runner was closed."));
      for (const run of this.#runs) run.abort(new AbortError("The team runner was closed."));
      while (this.#runs.size || this.#drains.size) await new Promise(resolve => setTimeout(resolve, 5));
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function pick(options: QueryOptions<any>): Partial<QueryOptions<any>> {
  return {
    ...(options.parentRunId ? { parentRunId: options.parentRunId } : {}),
    ...(options.parentToolUseId ? { parentToolUseId: options.parentToolUseId } : {}),
  };
}
