import type { AgentRuntime } from "./agent-runtime.js";
import { approvalDigest, sameJson } from "./approval-digest.js";
import {
  type ApprovalDecision,
  notAwaitingApproval,
  type PendingApproval,
  type PendingBatch,
  type PendingCall,
  pendingBatchOf,
  undecidedApprovals,
  validateDecisions,
} from "./approvals.js";
import { type PlannedCall, type PlanningContext, planCall } from "./call-plan.js";
import { type ApprovalKey, sealVerifies } from "./decision-seal.js";
import { ApprovalMismatchError, type ApprovalMismatchField } from "./errors.js";
import { type AssistantModelMessage, type ModelMessage, type ToolUseBlock, toolUsesOf } from "./messages.js";
import type { ResumeCheckExtra, ToolDefinition } from "./tool.js";
import { planToolBatch } from "./tool-batch.js";
import type { QueryPermissions } from "./workspace.js";

/**
 * A pause record is read back from a history store that someone other than this agent may be able to write, so
 * nothing in it is taken on trust when a query resumes. Before anything runs or is written:
 *
 * 1. The record must describe the stored assistant message: the same calls in the same order, each approval showing
 *    the call's own tool name, its digest being the digest of what it shows, and recorded decisions sealed by this
 *    agent's approval key (see decision-seal.ts).
 * 2. Each decision must carry the digest of the approval it answers.
 * 3. A batch none of whose calls ran yet is planned again from the stored calls exactly as the loop plans a new
 *    one — schema validation, the batch rules, needsApproval, the permission callback — and the record must agree:
 *    an approval shows the input the call validates to, a call the record lets run without a decision needs none,
 *    with that input. A call the policy now denies is answered instead of run.
 * 4. When the batch is then complete, every call that paused inside (a delegated agent) is checked by its tool
 *    (ToolDefinition.checkResume) the same way, down the delegation tree.
 *
 * Anything that does not match is refused with an ApprovalMismatchError naming the call and the field. A person's
 * word therefore runs only the call they were shown, and whoever edits the store can make the agent run no more
 * than its model could have asked for under the same policy.
 */

/** What a resume is checked with: the resuming query's context, grants and signal. */
export interface ResumeCheckOptions {
  context: unknown;
  permissions: QueryPermissions;
  signal: AbortSignal;
}

/**
 * Checks an agent's pause without running or writing anything: its own stored one, or the one `history` ends in
 * (a delegated session's conversation kept in its parent's pause record). Branded on every Agent.
 */
export type ResumeCheck = (
  decisions: ApprovalDecision[],
  options: ResumeCheckOptions,
  history?: readonly ModelMessage[],
) => Promise<void>;

/** A resume that passed the checks: what the loop records and runs. */
export interface CheckedResume {
  message: AssistantModelMessage;
  paused: PendingBatch;
  decisions: ApprovalDecision[];
  /** The fresh plan of each call, in tool_use order, when none of the batch's calls had run before the pause. */
  fresh: PlannedCall[] | undefined;
}

/** Checks a resume of the pause `history` ends in with the `submitted` decisions; throws when it must not run. */
export async function checkResume(
  runtime: AgentRuntime,
  history: readonly ModelMessage[],
  submitted: unknown,
  options: ResumeCheckOptions,
): Promise<CheckedResume> {
  const paused = pendingBatchOf(history);
  if (!paused) throw notAwaitingApproval();
  const message = history.at(-1) as AssistantModelMessage;
  const calls = toolUsesOf(message);
  const planTime = checkRecordShape(paused, calls, runtime.approvalKey);
  await runtime.tools.refresh();
  const fresh = planTime ? await replan(runtime, paused, calls, options) : undefined;
  const decisions = validateDecisions(paused, submitted);
  checkDigests(undecidedApprovals(paused), decisions);
  const decided = new Set(decisions.map(decision => decision.toolUseId));
  if (undecidedApprovals(paused).every(approval => decided.has(approval.toolUseId))) {
    await checkSuspended(runtime, paused, calls, decisions, options);
  }
  return { message, paused, decisions, fresh };
}

function mismatch(
  toolUseId: string,
  field: ApprovalMismatchField,
  detail: string,
  agentPath: string[] = [],
): ApprovalMismatchError {
  return new ApprovalMismatchError(toolUseId, field, detail, agentPath);
}

/**
 * Step 1. Returns true for a record of a batch none of whose calls ran (awaiting, waiting and answered calls), false
 * for one that ran and paused inside (suspended and settled calls).
 */
function checkRecordShape(paused: PendingBatch, calls: readonly ToolUseBlock[], key: ApprovalKey): boolean {
  const entries: unknown[] = Array.isArray(paused.calls) ? paused.calls : [];
  for (let index = 0; index < Math.max(entries.length, calls.length); index++) {
    const entry = entries[index] as PendingCall | undefined;
    const call = calls[index];
    if (!call) {
      throw mismatch(
        String(entry?.toolUseId),
        "toolUseId",
        "the pause record lists a call that the stored assistant message does not make",
      );
    }
    if (!entry || typeof entry !== "object" || entry.toolUseId !== call.id) {
      throw mismatch(
        call.id,
        "toolUseId",
        `the stored assistant message makes this call as call ${index + 1}, but the pause record lists ${
          entry && typeof entry === "object" ? JSON.stringify(entry.toolUseId) : "nothing"
        } there`,
      );
    }
    checkEntry(entry, call, key);
  }
  const started = entries.find(
    entry =>
      (entry as PendingCall).state === "suspended" ||
      ((entry as PendingCall).state === "done" && (entry as { settled?: unknown }).settled === true),
  ) as PendingCall | undefined;
  const unstarted = entries.find(entry => ["awaiting", "waiting"].includes((entry as PendingCall).state)) as
    | PendingCall
    | undefined;
  if (started && unstarted) {
    throw mismatch(
      unstarted.toolUseId,
      "state",
      `the record holds this call unstarted beside ${started.toolUseId}, which ran before the pause; a paused batch ` +
        "either ran (and paused inside a call) or did not start",
    );
  }
  return started === undefined;
}

function checkEntry(entry: PendingCall, call: ToolUseBlock, key: ApprovalKey): void {
  switch (entry.state) {
    case "awaiting": {
      const approval = entry.approval;
      checkApproval(approval, call.id, []);
      if (approval.toolName !== call.name) {
        throw mismatch(
          call.id,
          "toolName",
          `the approval shows the tool "${approval.toolName}" but the stored assistant message calls "${call.name}"`,
        );
      }
      if (entry.decision !== undefined) checkRecordedDecision(entry.decision, approval, key);
      return;
    }
    case "waiting":
      if (entry.toolName !== undefined && entry.toolName !== call.name) {
        throw mismatch(
          call.id,
          "toolName",
          `the record names the tool "${String(entry.toolName)}" but the stored assistant message calls "${call.name}"`,
        );
      }
      return;
    case "done": {
      const result = entry.result as { tool_use_id?: unknown } | undefined;
      if (!result || typeof result !== "object" || result.tool_use_id !== call.id) {
        throw mismatch(call.id, "result", "the recorded result answers another call");
      }
      return;
    }
    case "suspended": {
      if (!Array.isArray(entry.approvals) || entry.approvals.length === 0) {
        throw mismatch(call.id, "state", "the call is recorded as paused inside, with no approvals");
      }
      for (const approval of entry.approvals) checkApproval(approval, undefined, undefined);
      const decided = new Set<string>();
      for (const decision of entry.decisions ?? []) {
        const approval = entry.approvals.find(candidate => candidate.toolUseId === decision?.toolUseId);
        if (!approval || decided.has(approval.toolUseId)) {
          throw mismatch(
            call.id,
            "decision",
            "a recorded decision answers no approval of this call, or one twice",
          );
        }
        decided.add(approval.toolUseId);
        checkRecordedDecision(decision, approval, key);
      }
      return;
    }
    default:
      throw mismatch(
        call.id,
        "state",
        `unknown state ${JSON.stringify((entry as { state?: unknown }).state)} in the pause record`,
      );
  }
}

/** An approval's own consistency: it names its call, and its digest is the digest of what it shows. */
function checkApproval(
  approval: PendingApproval,
  toolUseId: string | undefined,
  agentPath: string[] | undefined,
) {
  const id = String(approval?.toolUseId ?? toolUseId);
  const path = agentPath ?? (Array.isArray(approval?.agentPath) ? approval.agentPath.map(String) : []);
  if (!approval || typeof approval !== "object" || typeof approval.toolName !== "string") {
    throw mismatch(id, "state", "the pause record holds an approval without a tool name", path);
  }
  if (toolUseId !== undefined && approval.toolUseId !== toolUseId) {
    throw mismatch(
      toolUseId,
      "toolUseId",
      `the approval names another call (${String(approval.toolUseId)})`,
      path,
    );
  }
  let digest: string | undefined;
  try {
    digest = approvalDigest(approval.toolName, approval.input);
  } catch {
    digest = undefined;
  }
  if (digest === undefined || approval.digest !== digest) {
    throw mismatch(
      id,
      digest === undefined ? "input" : "digest",
      digest === undefined
        ? "the approval's input has no JSON encoding"
        : "the approval's digest is not the digest of the tool name and input it shows",
      path,
    );
  }
}

function checkRecordedDecision(decision: unknown, approval: PendingApproval, key: ApprovalKey): void {
  const recorded = decision as Partial<ApprovalDecision> | null;
  const path = approval.agentPath ?? [];
  if (!sealVerifies(key, recorded)) {
    throw mismatch(
      approval.toolUseId,
      "decision",
      "a decision is recorded for this call that this agent did not seal: it was written into the store by someone " +
        "else, or recorded by a process with another approvalKey (give every process of the session the same key)",
      path,
    );
  }
  if (recorded!.toolUseId !== approval.toolUseId || recorded!.digest !== approval.digest) {
    throw mismatch(approval.toolUseId, "decision", "the recorded decision was made for another call", path);
  }
}

/** Step 2: each decision carries the digest of the approval it answers. */
function checkDigests(open: readonly PendingApproval[], decisions: readonly ApprovalDecision[]): void {
  const byId = new Map(open.map(approval => [approval.toolUseId, approval]));
  for (const decision of decisions) {
    const approval = byId.get(decision.toolUseId)!;
    if (decision.digest !== approval.digest) {
      throw mismatch(
        decision.toolUseId,
        "digest",
        `the decision was made for a call with digest ${short(decision.digest)}, but the call now pending is ` +
          `"${approval.toolName}" with digest ${short(approval.digest)}`,
        approval.agentPath ?? [],
      );
    }
  }
}

const short = (digest: string) => `${String(digest).slice(0, 12)}…`;

/** Step 3: the batch planned again from the stored calls; the record must agree with the plan. */
async function replan(
  runtime: AgentRuntime,
  paused: PendingBatch,
  calls: readonly ToolUseBlock[],
  options: ResumeCheckOptions,
): Promise<PlannedCall[]> {
  const fresh = await planToolBatch(calls, planningContext(runtime, options));
  for (const [index, entry] of paused.calls.entries()) {
    const planned = fresh[index]!;
    if (planned.status === "answered" || entry.state === "done" || entry.state === "suspended") continue;
    if (planned.status !== "ready" && planned.status !== "approval") continue;
    if (entry.state === "waiting" && planned.status === "approval") {
      throw mismatch(
        entry.toolUseId,
        "state",
        `the record lets this "${planned.call.name}" call run without a decision, but it needs a person's approval (${
          planned.reason ?? "the permission callback asks"
        })`,
      );
    }
    const shown = entry.state === "awaiting" ? entry.approval.input : entry.input;
    if (!sameJson(planned.input, shown)) {
      throw mismatch(
        entry.toolUseId,
        "input",
        entry.state === "awaiting"
          ? "the input the approval shows is not the input the stored call runs with"
          : "the input the record would run is not the input of the stored call",
      );
    }
  }
  return fresh;
}

function planningContext(runtime: AgentRuntime, options: ResumeCheckOptions): PlanningContext {
  return {
    tools: runtime.tools.byName,
    permission: runtime.permission,
    context: options.context,
    signal: options.signal,
    policy: runtime.toolBatchPolicy,
    structuredOutput: runtime.outputSchema !== undefined,
    truncated: false,
  };
}

/**
 * How an input a person edited into an approved call is authorised: put to the permission callback like the
 * model's own input (it may deny it or rewrite it; its needsApproval is already answered by the person).
 */
export function editedInputCheck(runtime: AgentRuntime, options: ResumeCheckOptions) {
  const context = planningContext(runtime, options);
  return (call: ToolUseBlock, definition: ToolDefinition, input: unknown): Promise<PlannedCall> =>
    planCall({ status: "ready", call: { ...call, input }, definition, input }, context);
}

/** Step 4: calls that paused inside are checked by their tools before any of them resumes. */
async function checkSuspended(
  runtime: AgentRuntime,
  paused: PendingBatch,
  calls: readonly ToolUseBlock[],
  decisions: readonly ApprovalDecision[],
  options: ResumeCheckOptions,
): Promise<void> {
  for (const [index, entry] of paused.calls.entries()) {
    if (entry.state !== "suspended") continue;
    const call = calls[index]!;
    const definition = runtime.tools.byName.get(call.name);
    if (typeof definition?.checkResume !== "function") continue;
    const ids = new Set(entry.approvals.map(approval => approval.toolUseId));
    const extra: ResumeCheckExtra = {
      context: options.context,
      signal: options.signal,
      toolUseId: call.id,
      sessionId: runtime.sessionId,
      permissions: options.permissions,
    };
    await definition.checkResume(
      entry.resume,
      [...(entry.decisions ?? []), ...decisions.filter(decision => ids.has(decision.toolUseId))].map(
        unsealed,
      ),
      extra,
    );
  }
}

/** A decision as a tool's resume() receives it. */
export function unsealed(decision: ApprovalDecision): ApprovalDecision {
  const { seal: _seal, ...plain } = decision as ApprovalDecision & { seal?: string };
  return plain as ApprovalDecision;
}
