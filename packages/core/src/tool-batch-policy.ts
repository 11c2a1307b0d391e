import { InvalidOptionError } from "./errors.js";
import type { ToolUseBlock } from "./messages.js";
import type { ToolDefinition, ToolKind } from "./tool.js";
import { errorOutcome, messageOf, type ToolCallOutcome } from "./tool-execution.js";

/** One call of the batch as a policy sees it (input as the model sent it, before schema parsing). */
export interface ToolBatchCall {
  id: string;
  name: string;
  input: unknown;
  /** "tool", "agent_tool" for delegation tools, "submit_output", or "unknown" for a name the agent lacks. */
  kind: ToolKind | "unknown";
}

export type ToolBatchDecision =
  | { allowed: true }
  | {
      allowed: false;
      code: string;
      message: string;
      conflictingToolCallIds?: string[];
      suggestedNextStep?: string;
    };

/** Sees each complete batch before any tool runs; a rejection means no tool of the batch runs. */
export interface ToolBatchPolicy {
  validate(input: { toolCalls: ToolBatchCall[] }): ToolBatchDecision | Promise<ToolBatchDecision>;
}

export function validateToolBatchPolicy(policy: ToolBatchPolicy | undefined): void {
  if (policy === undefined) return;
  if (policy === null || typeof policy !== "object" || typeof policy.validate !== "function") {
    throw new InvalidOptionError(
      "AgentOptions.toolBatchPolicy must be an object with a validate({ toolCalls }) method.",
    );
  }
}

/** Runs the policy; returns one rejection outcome per call when the batch must not run. */
export async function applyToolBatchPolicy(
  policy: ToolBatchPolicy | undefined,
  calls: readonly ToolUseBlock[],
  tools: ReadonlyMap<string, ToolDefinition>,
): Promise<ToolCallOutcome[] | undefined> {
  if (!policy) return undefined;
  const toolCalls = calls.map(call => ({
    id: call.id,
    name: call.name,
    input: call.input,
    kind: tools.get(call.name)?.kind ?? "unknown",
  }));
  let decision: ToolBatchDecision;
  try {
    decision = await policy.validate({ toolCalls });
  } catch (error) {
    decision = {
      allowed: false,
      code: "tool_batch_policy_error",
      message: `The tool batch policy failed, so no tool in this batch ran: ${messageOf(error)}`,
      suggestedNextStep:
        "Retry the calls; if this keeps failing, continue without them and report the problem.",
    };
  }
  if (decision?.allowed === true) return undefined;
  const rejection = decision as Extract<ToolBatchDecision, { allowed: false }>;
  const content = JSON.stringify({
    code: rejection.code ?? "invalid_tool_batch",
    message: rejection.message ?? "The tool batch was rejected by policy; no tool in this batch ran.",
    conflictingToolCallIds: rejection.conflictingToolCallIds ?? [],
    ...(rejection.suggestedNextStep ? { suggestedNextStep: rejection.suggestedNextStep } : {}),
  });
  return calls.map(call => errorOutcome(call, content));
}
