import { InvalidApprovalError } from "./errors.js";
import type { AssistantModelMessage, ModelMessage, PromptInput, ToolResultBlock } from "./messages.js";
import { assertKnownOptions } from "./option-validation.js";

/**
 * Human approval that pauses a run. When a batch holds calls that need a person's decision (a tool's
 * `needsApproval`, or a `permission` callback answering `{ behavior: "ask" }`) and nothing in process decides them,
 * the query ends with subtype "awaiting_approval". The pause is part of the history: the batch's assistant message
 * carries a `pendingBatch` record (stripped from what is sent to the model), so any history store — and a new
 * process over it — sees the same pending calls. `agent.resume(decisions)` applies a person's answers and runs on.
 */

/** What resumes a paused query: the person's decisions. `agent.query({ approvals })` / `agent.resume(approvals)`. */
export interface ResumeInput {
  approvals: ApprovalDecision[];
}

/** What a query starts from: a prompt, or the decisions that resume a paused one. */
export type QueryInput = PromptInput | ResumeInput;

export function isResumeInput(input: unknown): input is ResumeInput {
  return !!input && typeof input === "object" && !Array.isArray(input) && "approvals" in input;
}

/** A call waiting for a person's decision. */
export interface PendingApproval {
  /** The call to decide: this agent's own tool_use id, or a delegated agent's (see agentPath). */
  toolUseId: string;
  toolName: string;
  /** The validated input the call would run with. */
  input: unknown;
  /**
   * SHA-256 (hex) over the canonical JSON of `{ toolName, input }`: what the person is shown. A decision must carry
   * it (approveCall()/rejectCall() copy it), so a call changed after the person saw it is not run on their word.
   */
  digest: string;
  /**
   * Delegation tools between this agent and the call: [] for this agent's own calls, ["reviewer"] for a call made
   * by the agent behind the "reviewer" tool, and so on down nested delegation.
   */
  agentPath: string[];
  /** Why a decision is needed (the permission callback's message, or the tool's needsApproval). */
  reason?: string;
  /** ISO time the approval was requested. */
  requestedAt: string;
}

/**
 * A person's answer to one pending call. Build it with approveCall()/rejectCall() from the PendingApproval the
 * person was shown; `digest` must be that approval's digest.
 */
export type ApprovalDecision =
  | {
      toolUseId: string;
      /** The digest of the PendingApproval the person decided on. */
      digest: string;
      behavior: "approve";
      /** Runs the call with this input instead (validated against the tool's schema again). */
      updatedInput?: unknown;
      /** Who decided, recorded in the event stream and the trace. */
      decidedBy?: string;
    }
  | {
      toolUseId: string;
      digest: string;
      behavior: "reject";
      /** Read by the model in the call's error result. */
      message?: string;
      decidedBy?: string;
    };

/**
 * A decision as a pause record keeps it until its batch runs (a resume decided only some calls), sealed with the
 * agent's approval key (AgentOptions.approvalKey) so that a decision written into the store by anyone else is
 * refused.
 */
export type RecordedDecision = ApprovalDecision & { seal: string };

/** What a paused batch records about each of its calls, in tool_use order. */
export type PendingCall =
  /** This agent's own call waiting for a decision (recorded once one arrives, until the batch runs). */
  | { toolUseId: string; state: "awaiting"; approval: PendingApproval; decision?: RecordedDecision }
  /** A call that needs no approval: it waits with its batch and runs with this (validated, permitted) input. */
  | { toolUseId: string; state: "waiting"; toolName?: string; input: unknown }
  /**
   * A call answered before the pause: a denial or invalid input (not yet passed through onToolResult and the
   * trace: `settled` false), or a sibling that ran (`settled` true).
   */
  | { toolUseId: string; state: "done"; result: ToolResultBlock; settled: boolean }
  /** A tool (a delegated agent) that paused inside: its own pending approvals and what it needs to resume. */
  | {
      toolUseId: string;
      state: "suspended";
      approvals: PendingApproval[];
      resume: unknown;
      decisions?: RecordedDecision[];
    };

/** The pause record on an assistant message. */
export interface PendingBatch {
  v: 1;
  turn: number;
  calls: PendingCall[];
}

/** The pause a history ends in, when its last message is a paused batch. */
export function pendingBatchOf(history: readonly ModelMessage[]): PendingBatch | undefined {
  const last = history.at(-1);
  return last?.role === "assistant" ? (last as AssistantModelMessage).pendingBatch : undefined;
}

/** Every approval still waiting for a decision in `batch`, own calls first, in call order. */
export function undecidedApprovals(batch: PendingBatch): PendingApproval[] {
  return batch.calls.flatMap(call => {
    if (call.state === "awaiting") return call.decision ? [] : [call.approval];
    if (call.state === "suspended") {
      const decided = new Set((call.decisions ?? []).map(decision => decision.toolUseId));
      return call.approvals.filter(approval => !decided.has(approval.toolUseId));
    }
    return [];
  });
}

/** The shape check that needs no history: a non-empty array. */
export function validateDecisionList(decisions: unknown): void {
  if (!Array.isArray(decisions) || decisions.length === 0) {
    throw new InvalidApprovalError(
      "resume(): pass an array of decisions, e.g. [approveCall(pending)] or [rejectCall(pending, { message })], " +
        "built from the PendingApproval objects the person was shown.",
    );
  }
}

/** The error for a resume of an agent that is not paused. */
export function notAwaitingApproval(): InvalidApprovalError {
  return new InvalidApprovalError(
    "resume(): this agent is not awaiting approval, so there is nothing to decide. Start a new query instead.",
  );
}

/**
 * Checks `decisions` against the batch before anything changes: each answers a call that is waiting, once; and
 * has a valid shape, digest included. Throws InvalidApprovalError naming the first problem.
 */
export function validateDecisions(batch: PendingBatch | undefined, decisions: unknown): ApprovalDecision[] {
  if (!batch) throw notAwaitingApproval();
  validateDecisionList(decisions);
  if (!Array.isArray(decisions)) return [];
  const open = new Map(undecidedApprovals(batch).map(approval => [approval.toolUseId, approval]));
  const decidedBefore = new Set(
    batch.calls.flatMap(call =>
      call.state === "awaiting" && call.decision
        ? [call.toolUseId]
        : call.state === "suspended"
          ? (call.decisions ?? []).map(decision => decision.toolUseId)
          : [],
    ),
  );
  const seen = new Set<string>();
  for (const [index, decision] of decisions.entries()) {
    const entry = decision as Partial<ApprovalDecision> | null;
    if (!entry || typeof entry !== "object" || typeof entry.toolUseId !== "string") {
      throw new InvalidApprovalError(`resume(): decision ${index} needs a toolUseId string.`);
    }
    if (entry.behavior !== "approve" && entry.behavior !== "reject") {
      throw new InvalidApprovalError(
        `resume(): decision ${index} (${entry.toolUseId}) needs behavior "approve" or "reject", got ${JSON.stringify(entry.behavior)}.`,
      );
    }
    if (typeof entry.digest !== "string" || entry.digest === "") {
      throw new InvalidApprovalError(
        `resume(): decision ${index} (${entry.toolUseId}) needs the digest of the pending approval the person decided on. ` +
          "Build decisions with approveCall(pending) or rejectCall(pending), from the PendingApproval you showed them.",
      );
    }
    if (seen.has(entry.toolUseId) || decidedBefore.has(entry.toolUseId)) {
      throw new InvalidApprovalError(
        `resume(): call ${entry.toolUseId} was already decided; decide each call once.`,
      );
    }
    if (!open.has(entry.toolUseId)) {
      const waiting = [...open.keys()].join(", ") || "none";
      throw new InvalidApprovalError(
        `resume(): no pending call has the id ${entry.toolUseId}. Calls awaiting a decision: ${waiting}.`,
      );
    }
    seen.add(entry.toolUseId);
  }
  return decisions as ApprovalDecision[];
}

const APPROVE_OPTION_KEYS: ReadonlySet<string> = new Set(["decidedBy", "updatedInput"]);
const REJECT_OPTION_KEYS: ReadonlySet<string> = new Set(["decidedBy", "message"]);

/**
 * The decision that approves `pending` as the person was shown it: it carries the approval's toolUseId and digest,
 * so it is refused if the call changed since. `updatedInput` runs the call with this input instead (validated
 * against the tool's schema and put to the permission callback).
 *
 *     await agent.prompt({ approvals: [approveCall(pending, { decidedBy: "alice@example.com" })] });
 */
export function approveCall(
  pending: Pick<PendingApproval, "toolUseId" | "digest">,
  options: { decidedBy?: string; updatedInput?: unknown } = {},
): ApprovalDecision {
  assertPendingRef(pending, "approveCall");
  assertKnownOptions(options, APPROVE_OPTION_KEYS, "approveCall() options");
  return {
    toolUseId: pending.toolUseId,
    digest: pending.digest,
    behavior: "approve",
    ...(options.updatedInput !== undefined ? { updatedInput: options.updatedInput } : {}),
    ...(options.decidedBy !== undefined ? { decidedBy: options.decidedBy } : {}),
  };
}

/** The decision that rejects `pending`; the model reads `message` in the call's error result. */
export function rejectCall(
  pending: Pick<PendingApproval, "toolUseId" | "digest">,
  options: { decidedBy?: string; message?: string } = {},
): ApprovalDecision {
  assertPendingRef(pending, "rejectCall");
  assertKnownOptions(options, REJECT_OPTION_KEYS, "rejectCall() options");
  return {
    toolUseId: pending.toolUseId,
    digest: pending.digest,
    behavior: "reject",
    ...(options.message !== undefined ? { message: options.message } : {}),
    ...(options.decidedBy !== undefined ? { decidedBy: options.decidedBy } : {}),
  };
}

function assertPendingRef(pending: unknown, owner: string): void {
  const ref = pending as Partial<PendingApproval> | null;
  if (!ref || typeof ref.toolUseId !== "string" || typeof ref.digest !== "string" || ref.digest === "") {
    throw new InvalidApprovalError(
      `${owner}(): pass the PendingApproval the person decided on (at least its toolUseId and digest), as the ` +
        "awaiting_approval result, the approval_requested event or getPendingApprovals() gave it.",
    );
  }
}

/** The batch with `decisions` recorded, each sealed by `seal` (a new object; the input is not changed). */
export function recordDecisions(
  batch: PendingBatch,
  decisions: readonly ApprovalDecision[],
  seal: (decision: ApprovalDecision) => RecordedDecision,
): PendingBatch {
  const byId = new Map(decisions.map(decision => [decision.toolUseId, seal(decision)]));
  return {
    ...batch,
    calls: batch.calls.map(call => {
      if (call.state === "awaiting" && byId.has(call.toolUseId))
        return { ...call, decision: byId.get(call.toolUseId)! };
      if (call.state === "suspended") {
        const mine = call.approvals.flatMap(approval => byId.get(approval.toolUseId) ?? []);
        if (mine.length) return { ...call, decisions: [...(call.decisions ?? []), ...mine] };
      }
      return call;
    }),
  };
}

/** True when every call of the batch can run or be answered now. */
export function batchReady(batch: PendingBatch): boolean {
  return undecidedApprovals(batch).length === 0;
}

/** The assistant message with a new pause record, or without one. */
export function withPendingBatch(
  message: AssistantModelMessage,
  batch: PendingBatch | undefined,
): AssistantModelMessage {
  const { pendingBatch: _previous, ...rest } = message;
  return batch ? { ...rest, pendingBatch: batch } : rest;
}

/** The error result a rejected call answers with. */
export function rejectedResult(
  toolUseId: string,
  toolName: string,
  decision: ApprovalDecision,
): ToolResultBlock {
  const who = decision.decidedBy ? ` by ${decision.decidedBy}` : "";
  const why = decision.behavior === "reject" && decision.message ? `: ${decision.message}` : ".";
  return {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: `The call to "${toolName}" was rejected${who}${why} It did not run.`,
    is_error: true,
  };
}

/** The results that close a discarded pause, in tool_use order. */
export function discardedResults(
  message: AssistantModelMessage,
  batch: PendingBatch,
  note?: string,
): ToolResultBlock[] {
  const why = note ? `: ${note}` : ".";
  return message.content.flatMap(block => {
    if (block.type !== "tool_use") return [];
    const entry = batch.calls.find(call => call.toolUseId === block.id);
    if (entry?.state === "done") return [entry.result];
    return [
      {
        type: "tool_result" as const,
        tool_use_id: block.id,
        content: `The call to "${block.name}" was not run: the host discarded it while it awaited approval${why}`,
        is_error: true,
      },
    ];
  });
}
