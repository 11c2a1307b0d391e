import type {
  AgentLike,
  ContextTracer,
  DelegationRequest,
  QueryOptions,
  QueryRuntime,
  ReportedUsage,
  SDKMessage,
  SDKResultMessage,
  ToolHandlerExtra,
  WorkspaceGrant,
} from "@agent-lattice/core";
import { AbortError } from "@agent-lattice/core";
import { isAgentSpec, messageOf, runDelegatedChild } from "@agent-lattice/core/internal";
import { whenAborted } from "./abort-fanout.js";
import type {
  ClaimedTeamMessage,
  NewTeamMessage,
  SettledTeamMessage,
  TeamMailboxWatch,
  TeamMessage,
} from "./mailbox.js";
import { type MailboxToolContext, withMailboxContext } from "./mailbox-context.js";
import { hasMailboxTools, installMailboxTools } from "./mailbox-tools.js";
import { openMailboxWatch } from "./mailbox-watch.js";
import type { WorkScheduler } from "./scheduler.js";
import type { ResolvedMember, TeamContext, TeamEvents } from "./team-context.js";

/** The runner settings a work item runs under. */
export interface WorkSettings {
  scheduler: WorkScheduler;
  owner: string;
  leaseMs: number;
  /** "remote": members run in worker processes (runTeamWorker); this runner stores work and waits for results. */
  execution: "local" | "remote";
}

/**
 * How long a wait for a mailbox change sleeps before it re-checks anyway: a lease that expired (its holder died)
 * frees a mailbox without any notification. A quarter of the lease, between 25 ms and 1 s.
 */
export function recheckMs(leaseMs: number): number {
  return Math.max(25, Math.min(1000, Math.floor(leaseMs / 4)));
}

/** Where a work item's run hangs in the caller's run tree and what it inherits from the caller's query. */
export interface WorkParent {
  /** The run the member's run records as its parent (the lead's run for asks, the team's run otherwise). */
  runId: string;
  /** The tool call that started the work (nested agent_message events carry it). */
  toolUseId: string;
  tracer: ContextTracer | undefined;
  requestTimeoutMs: number | undefined;
  context: unknown;
}

export interface WorkItemInput {
  team: TeamContext;
  events: TeamEvents;
  settings: WorkSettings;
  member: ResolvedMember;
  /** Claims the message once the item may run: by id (delegations of this run) or the next one (drain). */
  claim(): Promise<ClaimedTeamMessage | undefined>;
  /** The message when known before the claim (delegations): cancelled if the run stops before it starts. */
  message: TeamMessage | undefined;
  parent: WorkParent;
  emit: (message: SDKMessage) => Promise<void>;
  /** Run-wide abort. */
  signal: AbortSignal;
  /** The run was interrupted: running members are interrupted, waiting items cancelled. */
  interrupted: AbortSignal;
  /**
   * A worker shutting down: the member's run is stopped and its message released to pending (another worker runs
   * it), not cancelled. Abort `signal` with it so the member stops.
   */
  release?: AbortSignal;
}

export type WorkStatus = "completed" | "failed" | "cancelled";

export interface WorkItemOutcome {
  /** The message as settled (undefined when nothing was claimed: drain found an empty mailbox). */
  message: TeamMessage | undefined;
  status: WorkStatus | "none" | "lost" | "released";
  /** What the lead reads: the reply, or what went wrong. */
  content: string;
  isError: boolean;
  usage: ReportedUsage | undefined;
  /** Messages written upstream with the settle (the reply or the diagnostic follow-up). */
  sent: TeamMessage[];
  /** Tool calls of the member's run whose handler failed, by tool (its result's tool_errors); absent when none. */
  toolErrors?: Record<string, number>;
  /** A member's run ended with an abort nobody asked the team for: the whole run must stop. */
  abort: AbortError | undefined;
}

/**
 * Runs one work item start to finish: waits for its mailbox and a slot, claims the message (lease renewed while it
 * runs), runs the member through core's delegation path (agent_message nesting, output contract, spawned specs
 * closed), and settles the message exactly once — completed with its reply, failed with a diagnostic follow-up
 * upstream, or cancelled — streaming team events as it goes.
 */
export async function runWorkItem(input: WorkItemInput): Promise<WorkItemOutcome> {
  // The item stops waiting when the run stops or is interrupted. Most items never wait (a free mailbox, a free
  // slot, a claim that succeeds at once), so the signals are combined only for a wait that needs one signal.
  const stops = [input.signal, input.interrupted] as const;
  const stopped = () => input.signal.aborted || input.interrupted.aborted;
  let release: (() => void) | undefined;
  try {
    release = await input.settings.scheduler.acquire(input.member.mailboxId, stops);
  } catch {
    return cancelUnstarted(input);
  }
  try {
    if (stopped()) return await cancelUnstarted(input);
    const claimed = await claimWhenFree(input, stops);
    if (!claimed) {
      if (stopped()) return await cancelUnstarted(input);
      if (!input.message) return emptyOutcome("none");
      const current = await input.team.mailbox.get(input.message.id);
      return {
        ...emptyOutcome("lost"),
        message: current,
        isError: true,
        content: `team_work_unavailable: message ${input.message.id} could not be claimed (it is ${current?.status ?? "gone"}); another worker may own it.`,
      };
    }
    await input.events.message("claimed", claimed, input.emit);
    return await runClaimed(input, claimed);
  } finally {
    release?.();
  }
}

/**
 * Claims the item's message. A known message that is still pending but cannot be claimed yet is waiting for its
 * mailbox: another process is running that member's current message (members work serially across processes too),
 * so the claim is retried whenever the mailbox changes (watch(), or polling for mailboxes without it) until it
 * succeeds, the message is taken or settled elsewhere, or the run stops (any of `stops` aborts).
 */
async function claimWhenFree(
  input: WorkItemInput,
  stops: readonly AbortSignal[],
): Promise<ClaimedTeamMessage | undefined> {
  let watch: TeamMailboxWatch | undefined;
  let stop: AbortSignal | undefined;
  try {
    while (true) {
      const claimed = await input.claim();
      if (claimed || !input.message || stops.some(signal => signal.aborted)) return claimed;
      const current = await input.team.mailbox.get(input.message.id);
      if (current?.status !== "pending") return undefined;
      stop ??= AbortSignal.any([...stops]);
      if (!watch) {
        // Watch first, then check again: a change between the check above and the watch's start is not missed.
        watch = await openMailboxWatch(input.team.mailbox, [input.member.mailboxId], { signal: stop });
        continue;
      }
      await watch.wait({ timeoutMs: recheckMs(input.settings.leaseMs), signal: stop });
    }
  } finally {
    await watch?.close();
  }
}

async function cancelUnstarted(input: WorkItemInput): Promise<WorkItemOutcome> {
  if (!input.message) return emptyOutcome("none");
  const reason = input.signal.aborted ? "aborted" : "interrupted";
  const cancelled = await input.team.mailbox.cancel(input.message.id, {
    outcome: {
      content: `Cancelled before it started: the team run was ${reason}.`,
      error: { code: reason, message: reason },
    },
  });
  if (cancelled) await input.events.message("cancelled", cancelled, input.emit);
  return {
    ...emptyOutcome("cancelled"),
    message: cancelled ?? input.message,
    isError: true,
    content: `cancelled: the team run was ${reason} before this work started.`,
  };
}

function emptyOutcome(status: WorkItemOutcome["status"]): WorkItemOutcome {
  return {
    message: undefined,
    status,
    content: "",
    isError: false,
    usage: undefined,
    sent: [],
    abort: undefined,
  };
}

/** Runs a message already claimed (a worker's claimNext()) to its settlement; see runWorkItem(). */
export async function runClaimedWorkItem(
  input: WorkItemInput,
  claimed: ClaimedTeamMessage,
): Promise<WorkItemOutcome> {
  return runClaimed(input, claimed);
}

async function runClaimed(input: WorkItemInput, claimed: ClaimedTeamMessage): Promise<WorkItemOutcome> {
  const { team, member, settings, events } = input;
  // The member's signal: aborted when the run stops (with the run's reason) or when the claim is lost. One
  // controller and a callback on the run's shared abort listener rather than AbortSignal.any() over a lease
  // controller: this runs for every item.
  const memberStop = new AbortController();
  const lease = { lost: false };
  const stopOnRunAbort = whenAborted([input.signal], () => memberStop.abort(input.signal.reason));
  const heartbeat = setInterval(
    () => {
      team.mailbox.renew(claimed.id, claimed.claimToken, settings.leaseMs).then(
        held => {
          if (held || lease.lost) return;
          lease.lost = true;
          memberStop.abort(
            new AbortError("The mailbox claim was lost (its lease expired and was reclaimed)."),
          );
        },
        () => {}, // a failed renewal is retried at the next beat; the lease covers several beats
      );
    },
    Math.max(10, Math.floor(settings.leaseMs / 3)),
  );
  heartbeat.unref?.();

  const work: MailboxToolContext = {
    team,
    events,
    mailboxId: member.mailboxId,
    current: claimed,
    reply: undefined,
    followups: [],
    sent: [],
    emit: input.emit,
  };
  const { target, spawned } = memberTarget(member, work);
  const signal = memberStop.signal;
  const started = { message_id: claimed.id, work_item_id: claimed.workItemId, thread_id: claimed.threadId };
  await events.agent(
    { subtype: "started", agent: member.name, mailbox: member.mailboxId, ...started },
    input.emit,
  );

  let result: SDKResultMessage | undefined;
  let content: string;
  let isError: boolean;
  let usage: ReportedUsage | undefined;
  try {
    const extra: ToolHandlerExtra = {
      context: input.parent.context,
      signal,
      toolUseId: input.parent.toolUseId,
      sessionId: team.sessionId,
      permissions: {},
      emit: async message => {
        // The member's own result arrives as a top-level agent_message of this call (deeper ones are nested).
        if (
          message.type === "agent_message" &&
          message.tool_use_id === input.parent.toolUseId &&
          message.message.type === "result"
        )
          result = message.message;
        await input.emit(message);
      },
      run: {
        runId: input.parent.runId,
        tracer: input.parent.tracer,
        requestTimeoutMs: input.parent.requestTimeoutMs,
        interrupted: input.interrupted,
        runtime: undefined,
      },
    };
    const request: DelegationRequest = {
      tool: member.name,
      factory: "agentTool",
      mode: modeOf(claimed),
      target,
      prompt: promptOf(claimed, member.mailboxId),
      input: undefined,
      grants: grantsOf(claimed),
      outputSchema: member.outputSchema,
    };
    const answer = await runDelegatedChild(request, extra);
    content = typeof answer.content === "string" ? answer.content : JSON.stringify(answer.content);
    isError = answer.isError === true;
    if (answer.suspend) {
      // A member's run paused for human approval: the team runtime cannot resume members yet, so the work item
      // fails with a report that says which calls waited (see docs/approvals.md).
      const waiting = answer.suspend.approvals
        .map(approval => `${approval.toolName} (${approval.toolUseId})`)
        .join(", ");
      content = `child_error: the member paused for human approval of ${waiting}; approvals inside team members are not supported yet. Use approvals on the lead, or delegate with agentTool().`;
      isError = true;
    }
    usage = answer.usage;
  } catch (error) {
    content = `child_error: the member failed: ${messageOf(error)}`;
    isError = true;
  } finally {
    clearInterval(heartbeat);
    stopOnRunAbort();
    await spawned?.close().catch(() => {});
  }

  const settled = await settle(input, claimed, work, { result, content, isError, lease, usage });
  const status = settled.status;
  await events.agent(
    {
      subtype: "finished",
      agent: member.name,
      mailbox: member.mailboxId,
      ...started,
      ...(status === "lost" || status === "none" || status === "released" ? {} : { status }),
      ...(result ? { usage: result.usage } : {}),
      ...(result?.tool_errors ? { tool_errors: result.tool_errors } : {}),
    },
    input.emit,
  );
  return { ...settled, usage, ...(result?.tool_errors ? { toolErrors: result.tool_errors } : {}) };
}

interface RunEnd {
  result: SDKResultMessage | undefined;
  content: string;
  isError: boolean;
  /** Whether the claim was lost (a renewal found it reclaimed); read when settling. */
  lease: { readonly lost: boolean };
  /** What the member's run spent: carried upstream in the reply's metadata (a lead in another process adds it). */
  usage: ReportedUsage | undefined;
}

/** Decides the terminal status and writes it with its upstream message in one atomic mailbox step. */
async function settle(
  input: WorkItemInput,
  claimed: ClaimedTeamMessage,
  work: MailboxToolContext,
  end: RunEnd,
): Promise<Omit<WorkItemOutcome, "usage">> {
  const { mailbox } = input.team;
  const token = claimed.claimToken;
  const subtype = end.result?.subtype;
  const runAborted = input.signal.aborted;
  const memberAborted = !runAborted && subtype === "error_abort" && !end.lease.lost;
  const interrupted = input.interrupted.aborted || subtype === "interrupted";

  if (input.release?.aborted) {
    // A worker shutting down hands the message back: pending again, for another worker to run from the start.
    const released = await mailbox.release(claimed.id, token);
    if (released) await input.events.message("released", released, input.emit);
    return {
      message: released ?? (await mailbox.get(claimed.id)),
      status: released ? "released" : "lost",
      content: `released: ${input.member.name}'s worker shut down before the work finished; the message is pending again.`,
      isError: true,
      sent: [],
      abort: undefined,
    };
  }

  if (end.lease.lost && !runAborted) {
    return {
      message: await mailbox.get(claimed.id),
      status: "lost",
      content: `team_claim_lost: the lease on message ${claimed.id} expired and another worker reclaimed it; its outcome is theirs to report.`,
      isError: true,
      sent: [],
      abort: undefined,
    };
  }

  if (runAborted || memberAborted || interrupted || subtype === "error_abort") {
    const reason = runAborted || memberAborted || subtype === "error_abort" ? "aborted" : "interrupted";
    const cancelled = await mailbox.cancel(claimed.id, {
      claimToken: token,
      outcome: { content: `The member's run was ${reason}.`, error: { code: reason, message: end.content } },
    });
    if (cancelled) await input.events.message("cancelled", cancelled, input.emit);
    return {
      message: cancelled ?? (await mailbox.get(claimed.id)),
      status: cancelled ? "cancelled" : "lost",
      content: `cancelled: ${input.member.name}'s run was ${reason}.`,
      isError: true,
      sent: [],
      abort: memberAborted
        ? new AbortError(`Member "${input.member.name}" was aborted; the team run stops.`, {
            cause: end.result?.error,
          })
        : undefined,
    };
  }

  const upstream = (kind: "reply" | "followup", content: string, metadata: Record<string, unknown> = {}) =>
    ({
      from: input.member.mailboxId,
      to: claimed.from,
      kind,
      content,
      parentMessageId: claimed.id,
      threadId: claimed.threadId,
      workItemId: claimed.workItemId,
      metadata: {
        member: input.member.name,
        ...(end.usage ? { usage: end.usage } : {}),
        ...(end.result?.tool_errors ? { toolErrors: end.result.tool_errors } : {}),
        ...metadata,
      },
    }) satisfies NewTeamMessage;
  const failure = errorOf(end);
  let outcome: SettledTeamMessage | undefined;
  let status: WorkStatus;
  let content = end.content;

  if (claimed.kind === "delegation") {
    if (!end.isError) {
      // An explicit team_reply stands in for plain final text; a structured result always wins (it is the contract).
      const structured =
        input.member.outputSchema !== undefined || end.result?.structuredResult !== undefined;
      if (work.reply !== undefined && !structured) content = work.reply;
      status = "completed";
      outcome = await mailbox.complete(claimed.id, token, {
        outcome: { content },
        send: [upstream("reply", content)],
      });
    } else {
      status = "failed";
      outcome = await mailbox.fail(claimed.id, token, {
        outcome: { content, error: failure },
        send: [upstream("followup", content, { diagnostic: true, error: failure })],
      });
    }
  } else if (claimed.kind === "message") {
    if (work.reply !== undefined) {
      status = "completed";
      content = work.reply;
      outcome = await mailbox.complete(claimed.id, token, {
        outcome: { content },
        send: [upstream("reply", content)],
      });
    } else if (work.followups.length) {
      status = "completed";
      content = `${input.member.name} followed up (${work.followups.length}) without a final reply yet.`;
      outcome = await mailbox.complete(claimed.id, token, { outcome: { content } });
    } else {
      status = "failed";
      const finalText = end.result?.result ? ` Its final text was: ${end.result.result}` : "";
      content = end.isError
        ? `${input.member.name} failed on message ${claimed.id} without replying: ${end.content}`
        : `no_reply: ${input.member.name} ended its run on message ${claimed.id} without calling team_reply or team_followup, so the message is marked failed.${finalText}`;
      const error = end.isError ? failure : { code: "no_reply", message: content };
      outcome = await mailbox.fail(claimed.id, token, {
        outcome: { content, error },
        send: [upstream("followup", content, { diagnostic: true, error })],
      });
    }
  } else {
    // A reply or follow-up addressed to a member is information: reading it is handling it.
    status = end.isError ? "failed" : "completed";
    outcome = end.isError
      ? await mailbox.fail(claimed.id, token, { outcome: { content, error: failure } })
      : await mailbox.complete(claimed.id, token, { outcome: { content } });
  }

  if (!outcome) {
    return {
      message: await mailbox.get(claimed.id),
      status: "lost",
      content: `team_claim_lost: message ${claimed.id} was reclaimed by another worker before this run could settle it.`,
      isError: true,
      sent: [],
      abort: undefined,
    };
  }
  await input.events.message(status, outcome.message, input.emit);
  for (const sent of outcome.sent) await input.events.message("sent", sent, input.emit);
  return {
    message: outcome.message,
    status,
    content,
    isError: status !== "completed",
    sent: outcome.sent,
    abort: undefined,
  };
}

function errorOf(end: RunEnd): { code: string; message: string } {
  const error = end.result?.error;
  if (error) return { code: error.code, message: error.message };
  if (end.result && end.result.subtype !== "success")
    return { code: end.result.subtype, message: end.content };
  const code = /^([a-z_]+):/.exec(end.content)?.[1] ?? "member_failed";
  return { code, message: end.content };
}

/**
 * The member as the delegation path runs it: a spec spawns a fresh session (with the mailbox tools) that is
 * closed afterwards; an agent that carries the mailbox tools runs with this work's mailbox context as its query
 * runtime; anything else (a nested team, a host AgentLike) runs as it is.
 */
function memberTarget(
  member: ResolvedMember,
  work: MailboxToolContext,
): { target: AgentLike<any, any>; spawned: { close(): Promise<void> } | undefined } {
  const agent = member.member.agent;
  const spawned = isAgentSpec(agent) ? agent.spawn() : undefined;
  if (spawned) installMailboxTools(spawned, `teamMember("${member.name}")`);
  const session = (spawned ?? agent) as AgentLike<any, any>;
  if (!hasMailboxTools(session)) return { target: session, spawned };
  const runtime: QueryRuntime = withMailboxContext({}, work);
  const withRuntime = (options: QueryOptions<any> | undefined): QueryOptions<any> => ({
    ...options,
    runtime,
  });
  const target: AgentLike<any, any> = {
    query: (prompt, options) => session.query(prompt, withRuntime(options)),
    prompt: (prompt, options) => session.prompt(prompt, withRuntime(options)),
    interrupt: () => session.interrupt(),
  };
  return { target, spawned };
}

function modeOf(message: TeamMessage): "ask" | "handoff" {
  return message.metadata.mode === "ask" ? "ask" : "handoff";
}

/** Accepted grants recorded in the message's metadata (already covered-checked and physical). */
export function grantsOf(message: TeamMessage): WorkspaceGrant[] {
  const grants = message.metadata.workspaceGrants;
  return Array.isArray(grants) ? (grants as WorkspaceGrant[]) : [];
}

/**
 * A delegation's content is the task as rendered for a direct ask (so a member behaves the same inside and outside
 * a team). Other messages are framed so the member knows where it came from and how to answer.
 */
export function promptOf(message: TeamMessage, mailboxId: string): string {
  if (message.kind === "delegation") return message.content;
  const header = [
    `Team mailbox ${mailboxId} received a ${message.kind} from ${message.from}.`,
    `message_id: ${message.id}`,
    `thread_id: ${message.threadId}`,
  ].join("\n");
  const grants = grantsOf(message);
  const grantText = grants.length
    ? `\n\nShared workspace grants for this task (you may write under these directories):\n${grants.map(grant => `- ${grant.root}${grant.reason ? ` (${grant.reason})` : ""}`).join("\n")}`
    : "";
  const instruction =
    message.kind === "message"
      ? "Handle it, then call team_reply with your final result (or team_followup to report progress or ask upstream). If you end without either, the message is marked failed."
      : "This answers earlier work of yours; act on it if needed. No reply is required.";
  return `${header}\n\n${message.content}${grantText}\n\n${instruction}`;
}
