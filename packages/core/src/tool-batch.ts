import { type PlannedCall, type PlanningContext, planCall } from "./call-plan.js";
import { type AgentHooks, applyToolResultHook } from "./hooks.js";
import type { ToolUseBlock } from "./messages.js";
import { exclusiveBatchViolation } from "./structured-output.js";
import { applyToolBatchPolicy, type ToolBatchPolicy } from "./tool-batch-policy.js";
import { groupForExecution, type ResolvedConcurrency } from "./tool-concurrency.js";
import {
  cancelledOutcome,
  errorOutcome,
  prepareToolCall,
  resumeSuspendedCall,
  runPlannedCall,
  type ToolCallOutcome,
  type ToolRunContext,
} from "./tool-execution.js";

export interface BatchContext extends ToolRunContext {
  concurrency: ResolvedConcurrency;
  policy: ToolBatchPolicy | undefined;
  hooks: AgentHooks<any> | undefined;
  /** submit_output is injected: enforce that it is alone in its batch. */
  structuredOutput: boolean;
  /** The turn stopped at max_tokens: its tool inputs may be cut off, so none runs. */
  truncated: boolean;
  /** Called as each call ends (after its onToolResult hook), with its own start and end times. */
  onResult?(call: ToolUseBlock, outcome: ToolCallOutcome, timing: CallTiming): Promise<void>;
  /** Called (after onResult) as a call ends whose handler failed (outcome.failure is set). */
  onToolError?(call: ToolUseBlock, outcome: ToolCallOutcome): Promise<void>;
}

/** When one call started and ended (epoch ms); equal for calls answered without running. */
export interface CallTiming {
  startedAt: number;
  endedAt: number;
}

/**
 * How a batch ended. `outcomes` has one entry per call, in tool_use order. A `failure` is the host's own code
 * failing (an onToolResult hook, or a tracer created with failOnError): "hook" means the outcomes were not all
 * shaped by the hook and must not be stored as they are; "observer" means they are complete and correct.
 */
export interface BatchResult {
  outcomes: ToolCallOutcome[];
  failure?: { kind: "hook" | "observer"; error: unknown };
}

/**
 * Plans one assistant turn's tool calls, one entry per call in tool_use order, before any of them runs: batch
 * rules first (max_tokens truncation, submit_output exclusivity, the host's policy — any of them answers every
 * call), then each call's input validation, permission and approval. A plan holding an "approval" entry pauses the
 * batch; otherwise runPlannedBatch() executes it.
 */
export async function planToolBatch(
  calls: readonly ToolUseBlock[],
  batch: PlanningContext,
): Promise<PlannedCall[]> {
  const rejected = batch.truncated
    ? truncatedBatchOutcomes(calls)
    : batch.structuredOutput || batch.policy
      ? await batchRejection(calls, batch)
      : undefined;
  if (rejected)
    return rejected.map((outcome, index) => ({ status: "answered", call: calls[index]!, outcome }));
  // Most turns make one call: it is prepared without Promise.all's bookkeeping.
  const prepared =
    calls.length === 1
      ? [await prepareToolCall(calls[0]!, batch)]
      : await Promise.all(calls.map(call => prepareToolCall(call, batch)));
  const planned: PlannedCall[] = [];
  // In tool_use order, one at a time: a host's permission callback sees calls in the order the model made them.
  for (const entry of prepared) planned.push(await planCall(entry, batch));
  return planned;
}

/**
 * Executes a plan and returns one outcome per call, in tool_use order, so every tool_use is answered by exactly
 * one tool_result (or, for a call that paused inside, a suspended outcome). Calls run in concurrency groups. Each
 * call's onToolResult hook and onResult observer run as that call ends, so a trace shows each result when it
 * happened; entries recorded before a pause ("final") are not hooked or traced again. A failing hook or observer
 * does not stop the other calls; the first failure is reported once the batch has settled.
 */
export async function runPlannedBatch(
  planned: readonly PlannedCall[],
  batch: BatchContext,
): Promise<BatchResult> {
  const result: BatchResult = { outcomes: [] };
  const settle: Settle = async (entry, outcome, startedAt) => {
    if (entry.status === "final" || outcome.suspended) return;
    const { call } = entry;
    const endedAt = Date.now();
    // Only a hook or an observer that exists is awaited: most calls have neither, and each await is a turn of the
    // microtask queue on every call of a long loop.
    if (batch.hooks?.onToolResult) {
      try {
        outcome.block = await applyToolResultHook(batch.hooks, {
          toolName: call.name,
          toolUseId: call.id,
          input: call.input,
          result: outcome.block,
          ...(outcome.error !== undefined ? { error: outcome.error } : {}),
          context: batch.context,
        });
      } catch (error) {
        result.failure ??= { kind: "hook", error };
        return;
      }
    }
    if (batch.onResult) {
      try {
        await batch.onResult(call, outcome, { startedAt, endedAt });
      } catch (error) {
        result.failure ??= { kind: "observer", error };
      }
    }
    if (outcome.failure && batch.onToolError) await batch.onToolError(call, outcome);
  };
  const outcomes = new Map<PlannedCall, ToolCallOutcome>();
  const groups = groupForExecution([...planned], batch.concurrency.mode, entry => isConcurrencySafe(entry));
  for (const group of groups) await runGroup(group, batch, outcomes, settle);
  result.outcomes = planned.map(entry => outcomes.get(entry)!);
  return result;
}

/** Plans and runs a batch that cannot pause (no approvals possible): for callers outside the agent loop. */
export async function runToolBatch(
  calls: readonly ToolUseBlock[],
  batch: BatchContext,
): Promise<BatchResult> {
  return runPlannedBatch(await planToolBatch(calls, batch), batch);
}

type Settle = (entry: PlannedCall, outcome: ToolCallOutcome, startedAt: number) => Promise<void>;

/** Batch-level rules: submit_output must be alone, then the host's policy. Either rejects the whole batch. */
async function batchRejection(calls: readonly ToolUseBlock[], batch: PlanningContext) {
  const exclusive = batch.structuredOutput ? exclusiveBatchViolation(calls) : undefined;
  return exclusive ?? (await applyToolBatchPolicy(batch.policy, calls, batch.tools));
}

function isConcurrencySafe(entry: PlannedCall): boolean {
  if (entry.status !== "ready") return entry.status !== "resume"; // nothing runs for answered/final; resume alone
  try {
    return entry.definition.isConcurrencySafe?.(entry.input) === true;
  } catch {
    return false; // a declaration that cannot decide is treated as unsafe
  }
}

/**
 * Runs one group with at most maxConcurrency calls in flight. After an abort, calls that have not started are
 * answered without running, and the group still waits for the started ones to settle.
 */
async function runGroup(
  group: PlannedCall[],
  batch: BatchContext,
  outcomes: Map<PlannedCall, ToolCallOutcome>,
  settle: Settle,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < group.length) {
      const entry = group[next++]!;
      const startedAt = Date.now();
      const outcome = await runEntry(entry, batch);
      outcomes.set(entry, outcome);
      await settle(entry, outcome, startedAt);
    }
  };
  const workers = Math.min(batch.concurrency.maxConcurrency, group.length);
  if (workers === 1) await worker();
  else await Promise.all(Array.from({ length: workers }, worker));
}

async function runEntry(entry: PlannedCall, batch: BatchContext): Promise<ToolCallOutcome> {
  switch (entry.status) {
    case "answered":
    case "final":
      return entry.outcome;
    case "approval":
      // A plan that still needs a person must not run; the loop pauses before this. Fail closed if it does not.
      return errorOutcome(entry.call, `Tool "${entry.call.name}" needs approval and was not run.`);
    case "ready":
      return batch.stopSignal.aborted
        ? cancelledOutcome(entry.call, batch)
        : runPlannedCall(entry.call, entry.definition, entry.input, batch);
    case "resume":
      return resumeSuspendedCall(entry.call, entry.definition, entry.state, entry.decisions, batch);
  }
}

/** The max_tokens rule: a truncated turn's tool inputs may be cut off, so none of them runs. */
export function truncatedBatchOutcomes(calls: readonly ToolUseBlock[]): ToolCallOutcome[] {
  return calls.map(call =>
    errorOutcome(
      call,
      `Tool "${call.name}" was not run: your response hit the max_tokens output limit, so this call's input may be ` +
        "incomplete. Reissue the call with a shorter output (split large content across several calls).",
    ),
  );
}
