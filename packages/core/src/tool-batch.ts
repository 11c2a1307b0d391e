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
  /** Called as each call ends (after its onToolResult hook), with its own start and end times. */
  onResult?(call: ToolUseBlock, outcome: ToolCallOutcome, timing: CallTiming): Promise<void>;
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
 * Runs one assistant turn's tool calls and returns one outcome per call, in tool_use order, so every tool_use
 * is answered by exactly one tool_result: batch rules first (submit_output exclusivity, the host's policy), then
 * execution in concurrency groups. Each call's onToolResult hook and onResult observer run as that call ends, so
 * a trace shows each result when it happened. A failing hook or observer does not stop the other calls; the
 * first failure is reported once the batch has settled.
 */
export async function runToolBatch(
  calls: readonly ToolUseBlock[],
  batch: BatchContext,
): Promise<BatchResult> {
  const result: BatchResult = { outcomes: [] };
  const settle: Settle = async (call, outcome, startedAt) => {
    const endedAt = Date.now();
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
    try {
      await batch.onResult?.(call, outcome, { startedAt, endedAt });
    } catch (error) {
      result.failure ??= { kind: "observer", error };
    }
  };
  const rejected = batch.truncated ? truncatedBatchOutcomes(calls) : await batchRejection(calls, batch);
  if (rejected) {
    const now = Date.now();
    for (const [index, outcome] of rejected.entries()) await settle(calls[index]!, outcome, now);
    result.outcomes = rejected;
  } else {
    result.outcomes = await executeBatch(calls, batch, settle);
  }
  return result;
}

type Settle = (call: ToolUseBlock, outcome: ToolCallOutcome, startedAt: number) => Promise<void>;

/** Batch-level rules: submit_output must be alone, then the host's policy. Either rejects the whole batch. */
async function batchRejection(calls: readonly ToolUseBlock[], batch: BatchContext) {
  const exclusive = batch.structuredOutput ? exclusiveBatchViolation(calls) : undefined;
  return exclusive ?? (await applyToolBatchPolicy(batch.policy, calls, batch.tools));
}

async function executeBatch(
  calls: readonly ToolUseBlock[],
  batch: BatchContext,
  settle: Settle,
): Promise<ToolCallOutcome[]> {
  const prepared = await Promise.all(calls.map(call => prepareToolCall(call, batch)));
  const outcomes = new Map<PreparedCall, ToolCallOutcome>();
  const groups = groupForExecution(prepared, batch.concurrency.mode, entry => isConcurrencySafe(entry));
  for (const group of groups) await runGroup(group, batch, outcomes, settle);
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
  settle: Settle,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < group.length) {
      const entry = group[next++]!;
      const startedAt = Date.now();
      let outcome: ToolCallOutcome;
      if (entry.status === "answered") outcome = entry.outcome;
      else if (batch.signal.aborted) outcome = cancelledOutcome(entry.call);
      else outcome = await runPreparedCall(entry, batch);
      outcomes.set(entry, outcome);
      await settle(entry.call, outcome, startedAt);
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
