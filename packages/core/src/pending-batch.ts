import { approvalDigest } from "./approval-digest.js";
import {
  type ApprovalDecision,
  type PendingApproval,
  type PendingBatch,
  type PendingCall,
  rejectedResult,
} from "./approvals.js";
import type { PlannedCall } from "./call-plan.js";
import type { ToolUseBlock } from "./messages.js";
import { unsealed } from "./pause-check.js";
import { validateWithSchema } from "./schema.js";
import type { ResolvedApproval } from "./sdk-messages.js";
import type { ToolDefinition } from "./tool.js";
import { errorOutcome, type ToolCallOutcome } from "./tool-execution.js";

/**
 * Conversions between a running batch and its stored pause record: a plan or a run's outcomes become a
 * PendingBatch (what the history keeps while a person decides), and a decided PendingBatch becomes a plan again
 * (what a resumed query runs).
 */

/** The pause record of a plan that holds calls needing approval; undefined when none does. */
export function pauseFromPlan(planned: readonly PlannedCall[], turn: number): PendingBatch | undefined {
  if (!planned.some(entry => entry.status === "approval")) return undefined;
  const requestedAt = new Date().toISOString();
  return { v: 1, turn, calls: planned.map(entry => pendingCallOf(entry, requestedAt)) };
}

function pendingCallOf(entry: PlannedCall, requestedAt: string): PendingCall {
  const toolUseId = entry.call.id;
  switch (entry.status) {
    case "approval":
      return {
        toolUseId,
        state: "awaiting",
        approval: {
          toolUseId,
          toolName: entry.call.name,
          input: entry.input,
          digest: approvalDigest(entry.call.name, entry.input),
          agentPath: [],
          ...(entry.reason ? { reason: entry.reason } : {}),
          requestedAt,
        },
      };
    case "ready":
      return { toolUseId, state: "waiting", toolName: entry.call.name, input: entry.input };
    case "answered":
    case "final":
      // Not hooked or traced yet: that happens when the batch runs.
      return { toolUseId, state: "done", result: entry.outcome.block, settled: entry.status === "final" };
    case "resume":
      return {
        toolUseId,
        state: "suspended",
        approvals: [],
        resume: entry.state,
      };
  }
}

/** The pause record of a batch that ran and has calls that paused inside; undefined when none did. */
export function pauseFromOutcomes(
  calls: readonly ToolUseBlock[],
  outcomes: readonly ToolCallOutcome[],
  turn: number,
): PendingBatch | undefined {
  if (!outcomes.some(outcome => outcome.suspended)) return undefined;
  return {
    v: 1,
    turn,
    calls: outcomes.map((outcome, index): PendingCall => {
      const toolUseId = calls[index]!.id;
      return outcome.suspended
        ? {
            toolUseId,
            state: "suspended",
            approvals: outcome.suspended.approvals,
            resume: outcome.suspended.state,
          }
        : { toolUseId, state: "done", result: outcome.block, settled: true };
    }),
  };
}

/**
 * The plan a resumed batch runs, from its checked pause record (see pause-check.ts) and, for a batch none of whose
 * calls had run, the batch planned again (`fresh`): a call the policy now answers is answered; approved calls run
 * with the input the person was shown — or the one they edited in, validated and put to the permission callback
 * (`authorise`) —; rejected ones are answered with the person's reason; waiting calls run; results recorded
 * before the pause stand; calls that paused inside are resumed with the decisions for their approvals. A tool that
 * no longer exists is answered with an error instead of running.
 */
export async function planFromPause(
  batch: PendingBatch,
  calls: readonly ToolUseBlock[],
  tools: ReadonlyMap<string, ToolDefinition>,
  fresh: readonly PlannedCall[] | undefined,
  authorise: (call: ToolUseBlock, definition: ToolDefinition, input: unknown) => Promise<PlannedCall>,
): Promise<PlannedCall[]> {
  const plan: PlannedCall[] = [];
  // In tool_use order, one at a time: the permission callback sees edited inputs in the order of the calls.
  for (const [index, call] of calls.entries()) {
    plan.push(await resumedCall(call, batch.calls[index], tools.get(call.name), fresh?.[index], authorise));
  }
  return plan;
}

async function resumedCall(
  call: ToolUseBlock,
  entry: PendingCall | undefined,
  definition: ToolDefinition | undefined,
  planned: PlannedCall | undefined,
  authorise: (call: ToolUseBlock, definition: ToolDefinition, input: unknown) => Promise<PlannedCall>,
): Promise<PlannedCall> {
  const missing = (): PlannedCall => ({
    status: "answered",
    call,
    outcome: errorOutcome(
      call,
      `Tool "${call.name}" is no longer available, so the approved call did not run.`,
    ),
  });
  if (!entry || entry.toolUseId !== call.id) {
    return { status: "answered", call, outcome: errorOutcome(call, `Tool "${call.name}" was not run.`) };
  }
  switch (entry.state) {
    case "done":
      return {
        status: entry.settled ? "final" : "answered",
        call,
        outcome: { block: entry.result, endTurn: false },
      };
    case "suspended":
      return definition
        ? {
            status: "resume",
            call,
            definition,
            state: entry.resume,
            decisions: (entry.decisions ?? []).map(unsealed),
          }
        : missing();
    case "awaiting":
      if (entry.decision?.behavior === "reject") {
        return {
          status: "answered",
          call,
          outcome: { block: rejectedResult(call.id, call.name, entry.decision), endTurn: false },
        };
      }
      break;
  }
  // An unstarted call runs only as the batch plans now (checked against the record before this).
  if (!planned || planned.status === "answered") return planned ?? missing();
  if (planned.status !== "ready" && planned.status !== "approval") return missing();
  const decision = entry.state === "awaiting" ? entry.decision : undefined;
  const updatedInput = decision?.behavior === "approve" ? decision.updatedInput : undefined;
  if (updatedInput === undefined)
    return { status: "ready", call, definition: planned.definition, input: planned.input };
  const checked = await validateWithSchema(planned.definition.schema, updatedInput);
  if (!checked.ok) {
    return {
      status: "answered",
      call,
      outcome: errorOutcome(
        call,
        `The approval edited the input of "${call.name}" into invalid input (${checked.message}), so it did not run.`,
      ),
    };
  }
  const edited = await authorise(call, planned.definition, checked.value);
  if (edited.status === "answered") return { ...edited, call };
  // The person already decided: a policy that asks again is answered by that decision.
  return edited.status === "ready" || edited.status === "approval"
    ? { status: "ready", call, definition: edited.definition, input: edited.input }
    : missing();
}

/** How applied decisions are reported in events and traces. */
export function resolvedApprovals(
  approvals: readonly PendingApproval[],
  decisions: readonly ApprovalDecision[],
): ResolvedApproval[] {
  return decisions.map(decision => {
    const approval = approvals.find(entry => entry.toolUseId === decision.toolUseId);
    return {
      toolUseId: decision.toolUseId,
      toolName: approval?.toolName ?? "",
      agentPath: approval?.agentPath ?? [],
      behavior: decision.behavior,
      ...(decision.decidedBy ? { decidedBy: decision.decidedBy } : {}),
      ...(decision.behavior === "reject" && decision.message ? { message: decision.message } : {}),
      edited: decision.behavior === "approve" && decision.updatedInput !== undefined,
    };
  });
}
