import {
  type ApprovalDecision,
  type PendingApproval,
  type PendingBatch,
  type PendingCall,
  rejectedResult,
} from "./approvals.js";
import type { PlannedCall } from "./call-plan.js";
import type { ToolUseBlock } from "./messages.js";
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
          agentPath: [],
          ...(entry.reason ? { reason: entry.reason } : {}),
          requestedAt,
        },
      };
    case "ready":
      return { toolUseId, state: "waiting", input: entry.input };
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
        decisions: entry.decisions,
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
 * The plan a resumed batch runs: approved calls run with their (re-validated) input, rejected ones are answered
 * with the person's reason, waiting calls run, results recorded before the pause stand, and calls that paused
 * inside are resumed with the decisions for their approvals. A tool that no longer exists is answered with an
 * error instead of running.
 */
export async function planFromPause(
  batch: PendingBatch,
  calls: readonly ToolUseBlock[],
  tools: ReadonlyMap<string, ToolDefinition>,
): Promise<PlannedCall[]> {
  return Promise.all(
    calls.map(async (call): Promise<PlannedCall> => {
      const entry = batch.calls.find(pending => pending.toolUseId === call.id);
      const definition = tools.get(call.name);
      const missing = (): PlannedCall => ({
        status: "answered",
        call,
        outcome: errorOutcome(
          call,
          `Tool "${call.name}" is no longer available, so the approved call did not run.`,
        ),
      });
      if (!entry) {
        return { status: "answered", call, outcome: errorOutcome(call, `Tool "${call.name}" was not run.`) };
      }
      switch (entry.state) {
        case "done":
          return {
            status: entry.settled ? "final" : "answered",
            call,
            outcome: { block: entry.result, endTurn: false },
          };
        case "waiting":
          return definition ? { status: "ready", call, definition, input: entry.input } : missing();
        case "suspended":
          return definition
            ? { status: "resume", call, definition, state: entry.resume, decisions: entry.decisions ?? [] }
            : missing();
        case "awaiting": {
          const decision = entry.decision!;
          if (decision.behavior === "reject") {
            return {
              status: "answered",
              call,
              outcome: { block: rejectedResult(call.id, call.name, decision), endTurn: false },
            };
          }
          if (!definition) return missing();
          if (decision.updatedInput === undefined)
            return { status: "ready", call, definition, input: entry.approval.input };
          const checked = await validateWithSchema(definition.schema, decision.updatedInput);
          return checked.ok
            ? { status: "ready", call, definition, input: checked.value }
            : {
                status: "answered",
                call,
                outcome: errorOutcome(
                  call,
                  `The approval edited the input of "${call.name}" into invalid input (${checked.message}), so it did not run.`,
                ),
              };
        }
      }
    }),
  );
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
