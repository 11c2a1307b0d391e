import type {
  DelegationRequest,
  QueryOptions,
  QueryRuntime,
  SDKMessage,
  ToolHandlerExtra,
  ToolResult,
  TurnBoundary,
  Usage,
  UserContentBlock,
} from "@agent-lattice/core";
import { AbortError } from "@agent-lattice/core";
import { addUsage, EventChannel, emptyUsage, type RunTrace } from "@agent-lattice/core/internal";
import type { TeamMessage } from "./mailbox.js";
import { withMailboxContext } from "./mailbox-context.js";
import { isTransientFailure } from "./mailbox-failures.js";
import { awaitRemoteWork } from "./remote-work.js";
import { sharedController } from "./shared-signal.js";
import type { ResolvedMember, TeamContext } from "./team-context.js";
import { TeamEvents } from "./team-context.js";
import {
  recheckMs,
  runWorkItem,
  type WorkItemOutcome,
  type WorkParent,
  type WorkSettings,
} from "./work-item.js";

/** Host-provided observation for mode "observe" (unsupported without it). */
export type ObserveHandler = (
  request: DelegationRequest,
  extra: ToolHandlerExtra,
) => ToolResult | Promise<ToolResult>;

/** Work the lead queued in the current tool batch, reported back before its next model request. */
interface Queued {
  member: ResolvedMember;
  /** Resolves once stored (undefined if storing failed: the tool call already reported that error). */
  stored: Promise<TeamMessage | undefined>;
  parent: WorkParent;
}

/**
 * One team invocation (one team.query()): the QueryRuntime its lead runs under. Member tool calls come here
 * (delegate): an ask becomes a work item run right away; a handoff is stored and answered with a receipt, and every
 * handoff of the batch runs before the lead's next model request (pendingInput), which then receives the reports in
 * handoff order. Events stream through the run's own channel, which team.query() drains with back-pressure while the
 * lead is paused; what is emitted after the consumer stopped listening is buffered.
 */
export class TeamRun implements QueryRuntime {
  readonly events: TeamEvents;
  readonly #controller = new AbortController();
  readonly #interrupt = sharedController();
  readonly signal: AbortSignal;
  #queued: Queued[] = [];
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #buffer: SDKMessage[] = [];
  /**
   * The run's own event stream. team.query() drains it while it waits for the lead, so team events (and members'
   * nested messages) reach the consumer directly, with back-pressure, instead of threading through every layer of
   * the lead's loop; the lead is paused at that moment anyway (in its tool batch, or at the turn boundary).
   */
  readonly channel = new EventChannel<SDKMessage>();
  /**
   * Streams a team event; once the run is closed (nobody drains the channel) it is buffered instead. A producer
   * waiting on a push when the run closes is released by the channel's close() (no per-event abort listener).
   * A run without a consumer (team.prompt()) drops its events: they are traced, and nobody would read them.
   */
  readonly emit: (message: SDKMessage) => Promise<void>;
  #closed = false;
  /** Tokens spent by handed-off work (asks are already in the lead's usage as tool usage). */
  readonly handoffUsage: Usage = emptyUsage();

  constructor(
    private readonly team: TeamContext,
    private readonly settings: WorkSettings,
    private readonly options: QueryOptions<any>,
    private readonly trace: RunTrace,
    private readonly observe: ObserveHandler | undefined,
    streaming = true,
  ) {
    this.emit = streaming
      ? message => (this.#closed ? this.#hold(message) : this.channel.push(message))
      : dropEvent;
    this.events = new TeamEvents(team, trace);
    this.signal = options.signal
      ? AbortSignal.any([options.signal, this.#controller.signal])
      : this.#controller.signal;
    // With exposeLeadMailboxTools the lead's team_* tools act on the lead's mailbox.
    withMailboxContext(this, {
      team,
      events: this.events,
      mailboxId: team.leadMailboxId,
      current: undefined,
      reply: undefined,
      followups: [],
      sent: [],
      emit: undefined,
    });
  }

  get runId(): string {
    return this.trace.runId;
  }

  /** Stops the run: running members are aborted, queued work is cancelled. */
  abort(reason: unknown = new AbortError("The team run was stopped.")): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }

  async delegate(request: DelegationRequest, extra: ToolHandlerExtra): Promise<ToolResult | undefined> {
    const member = this.team.memberByName(request.tool);
    // The lead's own delegation tools (not members of this team) keep core's behaviour.
    if (!member) return undefined;
    if (request.mode === "observe") return this.observe ? this.observe(request, extra) : undefined;
    if (typeof request.prompt !== "string") {
      return {
        isError: true,
        content:
          "team_prompt_not_text: inside a team runtime a member's task must be text, but mapInput returned content blocks. Return a string from mapInput (content blocks work only for direct asks).",
      };
    }
    const mode = request.mode ?? "handoff"; // delegateTool(): inside a team, work is handed off
    const parentOfHandoff: WorkParent = {
      runId: this.trace.enabled ? this.trace.runId : extra.run.runId,
      toolUseId: extra.toolUseId,
      tracer: this.options.tracer,
      requestTimeoutMs: extra.run.requestTimeoutMs,
      context: extra.context,
    };
    // Reserved before the first await, so the report order is the order the calls were made in.
    let settle!: (message: TeamMessage | undefined) => void;
    const stored = new Promise<TeamMessage | undefined>(resolve => {
      settle = resolve;
    });
    if (mode === "handoff") this.#queued.push({ member, stored, parent: parentOfHandoff });

    let message: TeamMessage;
    try {
      message = await this.team.mailbox.send({
        from: this.team.leadMailboxId,
        to: member.mailboxId,
        kind: "delegation",
        content: request.prompt,
        metadata: {
          mode,
          tool: request.tool,
          tool_use_id: extra.toolUseId,
          ...(this.trace.enabled ? { team_run_id: this.trace.runId } : {}),
          ...(request.grants.length ? { workspaceGrants: request.grants } : {}),
        },
      });
    } catch (error) {
      settle(undefined);
      throw error;
    }
    settle(message);
    await this.events.message("sent", message, this.emit);

    if (mode === "handoff") {
      return {
        content: JSON.stringify({
          status: "accepted",
          phase: "queued",
          completion_pending: true,
          message_id: message.id,
          work_item_id: message.workItemId,
          thread_id: message.threadId,
        }),
      };
    }

    // Ask: the member runs now, through the mailbox, and its answer is the tool result (as on the direct path).
    if (this.settings.execution === "remote") {
      // A worker elsewhere runs it; the ask waits for its settlement.
      const [remote] =
        (await this.#track(
          awaitRemoteWork({
            team: this.team,
            events: this.events,
            messages: [message],
            signal: AbortSignal.any([extra.signal, this.signal]),
            emit: this.emit,
            recheckMs: recheckMs(this.settings.leaseMs),
          }),
        )) ?? [];
      if (!remote) {
        return {
          isError: true,
          content: `cancelled: the team run stopped before ${member.name}'s worker reported.`,
        };
      }
      await this.#acknowledge(remote.sent);
      return {
        content: withToolErrors(remote.content, remote.toolErrors),
        ...(remote.isError ? { isError: true } : {}),
        usage: remote.usage,
      };
    }
    const outcome = await this.#track(
      runWorkItem({
        team: this.team,
        events: this.events,
        settings: this.settings,
        member,
        message,
        claim: () =>
          this.team.mailbox.claim(message.id, { owner: this.settings.owner, leaseMs: this.settings.leaseMs }),
        parent: {
          runId: extra.run.runId,
          toolUseId: extra.toolUseId,
          tracer: extra.run.tracer,
          requestTimeoutMs: extra.run.requestTimeoutMs,
          context: extra.context,
        },
        emit: this.emit,
        signal: AbortSignal.any([extra.signal, this.signal]),
        interrupted: AbortSignal.any([extra.run.interrupted, this.#interrupt.signal]),
      }),
    );
    if (outcome.abort) this.abort(outcome.abort);
    await this.#acknowledge(outcome.sent);
    return {
      content: withToolErrors(outcome.content, outcome.toolErrors),
      ...(outcome.isError ? { isError: true } : {}),
      usage: outcome.usage,
    };
  }

  async pendingInput(boundary: TurnBoundary): Promise<UserContentBlock[] | undefined> {
    const batch = this.#queued;
    if (!batch.length) return undefined;
    this.#queued = [];
    const onStop = () => {
      // The lead was interrupted (an abort also aborts this run's signal): interrupt members, cancel the rest.
      if (!this.signal.aborted) this.#interrupt.abort();
    };
    boundary.signal.addEventListener("abort", onStop, { once: true });
    if (boundary.signal.aborted) onStop();
    try {
      if (this.settings.execution === "remote") return await this.#remoteReports(batch, boundary.signal);
      const outcomes = await Promise.all(
        batch.map(async entry => {
          const message = await entry.stored;
          if (!message) return undefined;
          return this.#track(
            runWorkItem({
              team: this.team,
              events: this.events,
              settings: this.settings,
              member: entry.member,
              message,
              claim: () =>
                this.team.mailbox.claim(message.id, {
                  owner: this.settings.owner,
                  leaseMs: this.settings.leaseMs,
                }),
              parent: entry.parent,
              emit: this.emit,
              signal: this.signal,
              interrupted: this.#interrupt.signal,
            }),
          );
        }),
      );
      const abort = outcomes.find(outcome => outcome?.abort)?.abort;
      if (abort) {
        this.abort(abort);
        return undefined; // the lead sees its signal aborted and ends with error_abort
      }
      if (boundary.signal.aborted) return undefined;
      const reports: UserContentBlock[] = [];
      for (const [index, outcome] of outcomes.entries()) {
        if (!outcome) continue;
        addUsage(this.handoffUsage, outcome.usage);
        await this.#acknowledge(outcome.sent);
        reports.push({ type: "text", text: renderReport(batch[index]!.member, outcome) });
      }
      return reports;
    } finally {
      boundary.signal.removeEventListener("abort", onStop);
    }
  }

  /** Remote execution: waits for workers to settle the batch, then reports like a local batch. */
  async #remoteReports(batch: Queued[], boundary: AbortSignal): Promise<UserContentBlock[] | undefined> {
    const stored = await Promise.all(batch.map(entry => entry.stored));
    const entries = batch.filter((_, index) => stored[index]);
    const messages = stored.filter((message): message is TeamMessage => !!message);
    const outcomes = await this.#track(
      awaitRemoteWork({
        team: this.team,
        events: this.events,
        messages,
        signal: AbortSignal.any([this.signal, this.#interrupt.signal]),
        emit: this.emit,
        recheckMs: recheckMs(this.settings.leaseMs),
      }),
    );
    if (!outcomes || boundary.aborted) return undefined;
    const reports: UserContentBlock[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      addUsage(this.handoffUsage, outcome.usage);
      await this.#acknowledge(outcome.sent);
      reports.push({ type: "text", text: renderReport(entries[index]!.member, outcome) });
    }
    return reports;
  }

  /** Events emitted while nobody streams them, in order; team.query() yields them. */
  takeBuffered(): SDKMessage[] {
    return this.#buffer.splice(0);
  }

  /**
   * Winds the run down once the lead's query is over: handoffs of a final batch that never reached a boundary (the
   * lead ended on an endTurn tool) are cancelled, and every work item is awaited until it has settled (cancelled ones
   * included). Its events still stream through `channel`.
   */
  async settle(): Promise<void> {
    for (const entry of this.#queued.splice(0)) {
      const message = await entry.stored;
      if (!message) continue;
      const cancelled = await this.team.mailbox.cancel(message.id, {
        outcome: {
          content: "Cancelled: the lead's run ended before this handoff could run.",
          error: { code: "lead_ended", message: "The lead's run ended before the handoff ran." },
        },
      });
      if (cancelled) await this.events.message("cancelled", cancelled, this.emit);
    }
    while (this.#inflight.size) await Promise.allSettled([...this.#inflight]);
  }

  /** Ends the run: nobody drains `channel` any more, so later events are buffered (takeBuffered()). */
  async close(): Promise<void> {
    this.#closed = true;
    this.channel.close();
    await this.settle();
  }

  #hold(message: SDKMessage): Promise<void> {
    this.#buffer.push(message);
    return Promise.resolve();
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inflight.add(work);
    const done = () => this.#inflight.delete(work);
    work.then(done, done);
    return work;
  }

  /** Reports admitted to the lead are handled: their upstream messages in the lead's mailbox are completed. */
  async #acknowledge(sent: TeamMessage[]): Promise<void> {
    for (const message of sent) {
      if (message.to !== this.team.leadMailboxId) continue;
      try {
        const claimed = await this.team.mailbox.claim(message.id, {
          owner: this.settings.owner,
          leaseMs: this.settings.leaseMs,
        });
        if (!claimed) continue;
        await this.team.mailbox.complete(claimed.id, claimed.claimToken, {
          outcome: { content: "Delivered to the lead." },
        });
      } catch (error) {
        // The report is in hand; a store unreachable for now only leaves the reply pending in the lead's mailbox
        // (or claimed until its lease ends), where the host can still see it.
        if (!isTransientFailure(error)) throw error;
      }
    }
  }
}

const delivered = Promise.resolve();
/** The emit of a run nobody streams. */
const dropEvent = (): Promise<void> => delivered;

/** One handoff report as the lead reads it: a header line with the ids, then the member's answer. */
export function renderReport(member: ResolvedMember, outcome: WorkItemOutcome): string {
  const status =
    outcome.status === "none" || outcome.status === "lost" || outcome.status === "released"
      ? "failed"
      : outcome.status;
  const header = {
    member: member.name,
    status,
    // A member can complete although its tools failed: the lead is told which, so it can check the work.
    ...(outcome.toolErrors ? { tool_errors: outcome.toolErrors } : {}),
    message_id: outcome.message?.id,
    work_item_id: outcome.message?.workItemId,
    thread_id: outcome.message?.threadId,
  };
  return `[team_report] ${JSON.stringify(header)}\n${outcome.content}`;
}

/** An ask's answer, with a line saying which of the member's tool calls failed, when any did. */
function withToolErrors(content: string, toolErrors: Record<string, number> | undefined): string {
  return toolErrors ? `${content}\n[team_tool_errors] ${JSON.stringify(toolErrors)}` : content;
}
