import type { ToolUseBlock } from "./messages.js";
import {
  errorOutcome,
  executeToolCall,
  type ToolCallOutcome,
  type ToolRunContext,
} from "./tool-execution.js";

/**
 * Runs one assistant turn's tool calls and returns one outcome per call, in tool_use order, so every
 * tool_use is answered by exactly one tool_result. Calls run in order; once the query is cancelled,
 * calls that have not started are answered without running.
 */
export async function runToolBatch(
  calls: readonly ToolUseBlock[],
  run: ToolRunContext,
): Promise<ToolCallOutcome[]> {
  const outcomes: ToolCallOutcome[] = [];
  for (const call of calls) {
    if (run.signal.aborted) {
      outcomes.push(errorOutcome(call, `Tool "${call.name}" did not run: the query was cancelled.`));
      continue;
    }
    outcomes.push(await executeToolCall(call, run));
  }
  return outcomes;
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
