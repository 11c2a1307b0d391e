import type { ApprovalDecision } from "./approvals.js";
import type { ToolUseBlock } from "./messages.js";
import type { PermissionDecision } from "./permission.js";
import { validateWithSchema } from "./schema.js";
import type { ToolDefinition } from "./tool.js";
import type { ToolBatchPolicy } from "./tool-batch-policy.js";
import {
  describeThrown,
  errorOutcome,
  type PreparedCall,
  type ToolCallOutcome,
  type ToolRunContext,
} from "./tool-execution.js";

/**
 * What happens to one call of a batch, decided before any call of the batch runs: its input was validated, the
 * permission callback asked, and whether a person must approve it settled. Decisions for the whole batch come
 * first so a batch never half-runs before it pauses for approval.
 */
export type PlannedCall =
  /** Answered without running: unknown tool, invalid input, denied, or a batch rule. */
  | { status: "answered"; call: ToolUseBlock; outcome: ToolCallOutcome }
  /** Runs with this (validated, permitted) input. */
  | { status: "ready"; call: ToolUseBlock; definition: ToolDefinition; input: unknown }
  /** Waits for a person's decision (the batch pauses). */
  | { status: "approval"; call: ToolUseBlock; definition: ToolDefinition; input: unknown; reason?: string }
  /** Recorded before a pause (a resumed batch): its result stands, hooks and traces already ran. */
  | { status: "final"; call: ToolUseBlock; outcome: ToolCallOutcome }
  /** A tool that paused inside (a delegated agent), continued with the decisions for its approvals. */
  | {
      status: "resume";
      call: ToolUseBlock;
      definition: ToolDefinition;
      state: unknown;
      decisions: ApprovalDecision[];
    };

/** What planning a batch needs from the running query: no call runs while it is planned. */
export type PlanningContext = Pick<ToolRunContext, "tools" | "permission" | "context" | "signal"> & {
  /** The host's batch policy. */
  policy: ToolBatchPolicy | undefined;
  /** submit_output is injected: enforce that it is alone in its batch. */
  structuredOutput: boolean;
  /** The turn stopped at max_tokens: its tool inputs may be cut off, so none runs. */
  truncated: boolean;
};

/**
 * Decides one prepared call: a tool's `needsApproval`, then the permission callback. The callback is asked for
 * every call except submit_output; it may deny any call, rewrite the input (validated again), or answer "ask" to
 * have a person decide. A call whose tool needs approval waits for a person even when the callback allows it —
 * only a denial settles it in process. A callback or needsApproval that throws fails closed.
 */
export async function planCall(prepared: PreparedCall, run: PlanningContext): Promise<PlannedCall> {
  if (prepared.status === "answered") return prepared;
  const { call, definition } = prepared;
  let input = prepared.input;
  if (definition.kind === "submit_output") return prepared;
  const needsApproval = await approvalNeeded(definition, input, run.context);
  if (run.permission) {
    let decision: PermissionDecision;
    try {
      decision = await run.permission({
        toolName: call.name,
        input,
        toolUseId: call.id,
        context: run.context,
        signal: run.signal,
        needsApproval: needsApproval !== false,
      });
    } catch (error) {
      // Fail closed: a permission check that could not decide must not let the tool run.
      return answered(
        call,
        errorOutcome(
          call,
          `Permission check for tool "${call.name}" failed: ${describeThrown(error)}. The tool did not run.`,
          error,
        ),
      );
    }
    if (decision?.behavior === "ask") {
      return {
        status: "approval",
        call,
        definition,
        input,
        ...(decision.message ? { reason: decision.message } : {}),
      };
    }
    if (decision?.behavior !== "allow") {
      const reason =
        decision?.behavior === "deny" && decision.message ? decision.message : "denied by the host";
      return answered(call, errorOutcome(call, `Permission denied for tool "${call.name}": ${reason}`));
    }
    if ("updatedInput" in decision && decision.updatedInput !== undefined) {
      const revalidated = await validateWithSchema(definition.schema, decision.updatedInput);
      if (!revalidated.ok) {
        return answered(
          call,
          errorOutcome(
            call,
            `The permission callback rewrote the input of "${call.name}" into invalid input: ${revalidated.message}`,
          ),
        );
      }
      input = revalidated.value;
    }
  }
  if (needsApproval !== false) {
    return { status: "approval", call, definition, input, reason: needsApproval };
  }
  return { status: "ready", call, definition, input };
}

/** false when the call may run without a person, else why a person must decide. */
async function approvalNeeded(
  definition: ToolDefinition,
  input: unknown,
  context: unknown,
): Promise<false | string> {
  const rule = definition.needsApproval;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return `"${definition.name}" requires approval`;
  try {
    return (await rule(input, context)) ? `"${definition.name}" requires approval for this input` : false;
  } catch (error) {
    // Fail closed: when the rule cannot decide, a person does.
    return `"${definition.name}"'s needsApproval check failed (${describeThrown(error)}), so a person must decide`;
  }
}

function answered(call: ToolUseBlock, outcome: ToolCallOutcome): PlannedCall {
  return { status: "answered", call, outcome };
}
