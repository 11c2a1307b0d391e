import { type AgentHooks, applyToolResultHook } from "./hooks.js";
import type { ToolUseBlock } from "./messages.js";
import { exclusiveBatchViolation } from "./structured-output.js";
import { applyToolBatchPolicy, type ToolBatchPolicy } from "./tool-batch-policy.js";
import { groupForExecution, type ResolvedConcurrency } from "./tool-concurrency.js";
import {
  cancelledOutcome,
  errorOutcome,
  type PreparedCall,
  prepareToolCall,
  runPreparedCall,
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
}

/**
 * Runs one assistant turn's tool calls and returns one outcome per call, in tool_use order, so every tool_use
 * is answered by exactly one tool_result: batch rules first (submit_output exclusivity, the host's policy), then
 * execution in concurrency groups, then onToolResult hooks. A throwing hook propagates.
 */
export async function runToolBatch(
  calls: readonly ToolUseBlock[],
  batch: BatchContext,
): Promise<ToolCallOutcome[]> {
  const rejected = batch.truncated ? truncatedBatchOutcomes(calls) : await batchRejection(calls, batch);
  const outcomes = rejected ?? (await executeBatch(calls, batch));
  for (const [index, outcome] of outcomes.entries()) {
    const call = calls[index]!;
    outcome.block = await applyToolResultHook(batch.hooks, {
      toolName: call.name,
      toolUseId: call.id,
      input: call.input,
      result: outcome.block,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      context: batch.context,
    });
  }
  return outcomes;
}

/** Batch-level rules: submit_output must be alone, then the host's policy. Either rejects the whole batch. */
async function batchRejection(calls: readonly ToolUseBlock[], batch: BatchContext) {
  const exclusive = batch.structuredOutput ? exclusiveBatchViolation(calls) : undefined;
  return exclusive ?? (await applyToolBatchPolicy(batch.policy, calls, batch.tools));
}

async function executeBatch(calls: readonly ToolUseBlock[], batch: BatchContext): Promise<ToolCallOutcome[]> {
  const prepared = await Promise.all(calls.map(call => prepareToolCall(call, batch)));
  const outcomes = new Map<PreparedCall, ToolCallOutcome>();
  const groups = groupForExecution(prepared, batch.concurrency.mode, entry => isConcurrencySafe(entry));
  for (const group of groups) await runGroup(group, batch, outcomes);
  return prepared.map(entry => outcomes.get(entry)!);
}

function isConcurrencySafe(entry: PreparedCall): boolean {
  if (entry.status === "answered") return true; // nothing runs for it
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
  group: PreparedCall[],
  batch: BatchContext,
  outcomes: Map<PreparedCall, ToolCallOutcome>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < group.length) {
      const entry = group[next++]!;
      if (entry.status === "answered") outcomes.set(entry, entry.outcome);
      else if (batch.signal.aborted) outcomes.set(entry, cancelledOutcome(entry.call));
      else outcomes.set(entry, await runPreparedCall(entry, batch));
    }
  };
  const workers = Math.min(batch.concurrency.maxConcurrency, group.length);
  await Promise.all(Array.from({ length: workers }, worker));
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
