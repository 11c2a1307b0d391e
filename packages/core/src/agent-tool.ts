import type { AgentLike } from "./agent.js";
import type { QueryOptions } from "./agent-options.js";
import { type DelegationTarget, declaredOutputSchemaOf, isAgentSpec } from "./agent-spec.js";
import {
  type AgentToolInput,
  acceptGrants,
  type DelegationMode,
  defaultInputJsonSchema,
  parseAgentToolInput,
  renderTask,
} from "./agent-tool-input.js";
import type { ApprovalDecision } from "./approvals.js";
import { BRANDS, brandOf } from "./brand.js";
import { AgentLatticeError, ApprovalMismatchError, InvalidOptionError } from "./errors.js";
import { findHistoryProblem } from "./history-invariant.js";
import type { ModelMessage, PromptInput, UserContentBlock } from "./messages.js";
import { assertKnownOptions } from "./option-validation.js";
import { childOutput, resolveOutputContract } from "./output-contract.js";
import type { ResumeCheck } from "./pause-check.js";
import type { DelegationRequest } from "./query-runtime.js";
import { isSchemaLike, type SchemaLike, toToolInputSchema } from "./schema.js";
import type { SDKMessage, SDKResultMessage } from "./sdk-messages.js";
import type { OutputSchema } from "./structured-output.js";
import {
  assertNeedsApproval,
  type NeedsApproval,
  type ResumeCheckExtra,
  TOOL_NAME,
  type ToolDefinition,
  type ToolHandlerExtra,
  type ToolResult,
} from "./tool.js";
import { messageOf } from "./tool-execution.js";
import type { WorkspaceGrant } from "./workspace.js";

export interface AgentToolOptions<TInput = any> {
  /** What the calling model reads about this agent. The SDK appends the session semantics and output contract. */
  description?: string;
  /** The structured output the child must deliver (inherited from the target when omitted; must match it). */
  outputSchema?: OutputSchema;
  /** Typed delegation: replaces the default input shape; requires mapInput. */
  inputSchema?: SchemaLike<TInput>;
  /** Typed delegation: projects the validated input into the child's prompt. */
  mapInput?: (input: TInput) => string | UserContentBlock[];
  /** Host-owned annotation, passed through to ToolDefinition.metadata; never shown to the model. */
  metadata?: Record<string, unknown>;
  /** Delegating itself needs a person's approval (or a function deciding from the input and context). */
  needsApproval?: NeedsApproval<any>;
}

/** delegateTool() takes the same options. */
export type DelegateToolOptions<TInput = any> = AgentToolOptions<TInput>;

const OPTION_KEYS: ReadonlySet<string> = new Set([
  "description",
  "outputSchema",
  "inputSchema",
  "mapInput",
  "metadata",
  "needsApproval",
]);

/**
 * Exposes an agent to a parent as a tool. `target` is a spec (a fresh session per call) or a live session /
 * any AgentLike (one session that remembers earlier calls). Ask calls run the child to completion and return
 * its result; its messages stream through the parent's query as `agent_message` events.
 */
export function agentTool<TInput = any>(
  name: string,
  target: DelegationTarget<any>,
  options: AgentToolOptions<TInput> = {},
): ToolDefinition<any> {
  return delegationTool("agentTool", name, target, options, true);
}

/**
 * Like agentTool(), without a `mode` field: the runtime picks the semantics (inside a team runtime calls are
 * handed off; elsewhere they are asked and awaited).
 */
export function delegateTool<TInput = any>(
  name: string,
  target: DelegationTarget<any>,
  options: DelegateToolOptions<TInput> = {},
): ToolDefinition<any> {
  return delegationTool("delegateTool", name, target, options, false);
}

function delegationTool(
  factory: "agentTool" | "delegateTool",
  name: string,
  target: DelegationTarget<any>,
  options: AgentToolOptions,
  withMode: boolean,
): ToolDefinition<any> {
  const owner = `${factory}("${name}")`;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new InvalidOptionError(
      `${factory}(): invalid name ${JSON.stringify(name)}. Tool names must match ${TOOL_NAME}.`,
    );
  }
  assertKnownOptions(options, OPTION_KEYS, owner);
  if (!isAgentSpec(target) && !isAgentLike(target)) {
    throw new InvalidOptionError(
      `${owner}: the target must be an agent (createAgent()), a spec (defineAgent()), or an AgentLike with query(), prompt() and interrupt().`,
    );
  }
  const typed = options.inputSchema !== undefined || options.mapInput !== undefined;
  if (typed && (options.inputSchema === undefined || typeof options.mapInput !== "function")) {
    throw new InvalidOptionError(
      `${owner}: inputSchema and mapInput must be passed together — inputSchema validates the parent's arguments and mapInput turns them into the child's prompt.`,
    );
  }
  if (typed && !isSchemaLike(options.inputSchema)) {
    throw new InvalidOptionError(
      `${owner}: inputSchema must be a schema (a zod schema, a Standard Schema, or { parse }).`,
    );
  }
  if (options.outputSchema !== undefined && !isSchemaLike(options.outputSchema)) {
    throw new InvalidOptionError(
      `${owner}: outputSchema must be a schema (a zod schema, a Standard Schema, or { parse }).`,
    );
  }
  assertNeedsApproval(options.needsApproval, owner);
  const schema = resolveOutputContract(owner, options.outputSchema, declaredOutputSchemaOf(target));
  const fresh = isAgentSpec(target);

  const inputSchema: SchemaLike<any> = typed
    ? options.inputSchema!
    : {
        parse: (input: unknown) => parseAgentToolInput(input, withMode),
        jsonSchema: defaultInputJsonSchema(withMode),
      };

  const handler = async (input: any, extra: ToolHandlerExtra): Promise<ToolResult> => {
    let prompt: PromptInput;
    let grants: WorkspaceGrant[] = [];
    let mode: DelegationMode | undefined = withMode ? "ask" : undefined;
    if (typed) {
      prompt = options.mapInput!(input);
    } else {
      const call = input as AgentToolInput;
      if (withMode) mode = call.mode ?? "ask";
      const { accepted, rejected } = acceptGrants(call.workspaceGrants, extra.permissions);
      if (rejected.length) return grantNotCovered(rejected, extra);
      grants = accepted;
      prompt = renderTask(call, grants);
    }
    const request: DelegationRequest = {
      tool: name,
      factory,
      mode,
      target,
      prompt,
      input,
      grants,
      outputSchema: schema,
    };
    // A runtime hosting the query (a team) may take the call: queue a handoff, route an ask through a mailbox.
    const answered = await extra.run.runtime?.delegate?.(request, extra);
    if (answered) return answered;
    if (mode === "handoff" || mode === "observe") {
      return {
        isError: true,
        content: `unsupported_mode: mode "${mode}" needs a team runtime (createTeam) that accepts ${mode === "handoff" ? "handoffs" : "observation"}. Outside a team, call with mode "ask".`,
      };
    }
    return runDelegatedChild(request, extra);
  };

  const definition: ToolDefinition<any> = {
    kind: "agent_tool",
    name,
    description: describe(name, options.description, fresh, schema !== undefined),
    inputSchema: toToolInputSchema(inputSchema, owner),
    schema: inputSchema,
    handler,
    resume: (state: unknown, decisions: ApprovalDecision[], extra: ToolHandlerExtra) =>
      resumeDelegatedChild(name, target, state as DelegationPauseState, decisions, extra, schema),
    checkResume: (state: unknown, decisions: ApprovalDecision[], extra: ResumeCheckExtra) =>
      checkDelegatedChild(name, target, state, decisions, extra),
    // A fresh session per call can overlap with others; one live session cannot run two queries at once.
    ...(fresh ? { isConcurrencySafe: () => true } : {}),
    ...(options.metadata !== undefined ? { metadata: options.metadata } : {}),
    ...(options.needsApproval !== undefined ? { needsApproval: options.needsApproval } : {}),
  };
  return Object.freeze(definition);
}

function grantNotCovered(rejected: WorkspaceGrant[], extra: ToolHandlerExtra): ToolResult {
  return {
    isError: true,
    content: JSON.stringify({
      code: "grant_not_covered",
      message: "You can only pass on write access you hold yourself; no task was started.",
      rejectedRoots: rejected.map(grant => grant.root),
      yourGrants: (extra.permissions.workspaceGrants ?? []).map(grant => grant.root),
      suggestedNextStep:
        "Drop the uncovered grants (ask the member to write in its own workspace and report paths) or request them from whoever delegated to you.",
    }),
  };
}

/**
 * Runs a delegation as an ask: the child (a fresh session for a spec, closed afterwards; else the live target)
 * runs to completion with the caller's signal, interrupt, tracer, deadline and accepted grants, its messages
 * stream into the caller's query as agent_message events, and its result is held to the output contract. A child
 * that ends "awaiting_approval" suspends the call: its approvals surface on the caller (and, through it, on the
 * outermost run), and resumeDelegatedChild() continues it once they are decided.
 * Exported (internal entry) so a runtime that routes asks itself gives the same answer as core.
 */
export async function runDelegatedChild(
  request: DelegationRequest,
  extra: ToolHandlerExtra,
): Promise<ToolResult> {
  const spawned = isAgentSpec(request.target) ? request.target.spawn() : undefined;
  const child: AgentLike<any> = spawned ?? (request.target as AgentLike<any>);
  try {
    return await runChild(
      request.tool,
      child,
      options => child.query(request.prompt, options),
      request.grants,
      extra,
      request.outputSchema,
      spawned,
    );
  } finally {
    // A fresh session per call owns its workspace and handles: release them now, not at exit.
    await spawned?.close().catch(() => {});
  }
}

/**
 * What a suspended delegation stores to resume (JSON: it lives in the caller's history). A spec's fresh session is
 * closed when the call suspends, so its conversation — paused batch included — travels in the state and a new
 * session continues it, in this process or another. A live session keeps its own pause.
 */
export type DelegationPauseState =
  | { kind: "session"; history: ModelMessage[]; grants: WorkspaceGrant[] }
  | { kind: "live"; grants: WorkspaceGrant[] };

/** The agent a suspended delegation resumes: a new session over the stored conversation, or the live target. */
function resumedChild(target: DelegationTarget<any>, state: DelegationPauseState) {
  const spawned = state?.kind === "session" && isAgentSpec(target) ? target.spawn() : undefined;
  const child = (spawned ?? target) as AgentLike<any> & {
    resume?: (decisions: ApprovalDecision[], options?: QueryOptions<any>) => AsyncIterable<SDKMessage>;
  };
  return { spawned, child };
}

/**
 * Checks a suspended delegation before the resumed batch runs (ToolDefinition.checkResume of agentTool): the
 * delegated agent checks the stored pause it would resume — the conversation kept in the state for a spec, its own
 * history for a live session — as it checks its own. A mismatch is reported from the caller's side (its agentPath
 * starts with this tool). A host AgentLike checks its own pause when it resumes.
 */
async function checkDelegatedChild(
  tool: string,
  target: DelegationTarget<any>,
  stored: unknown,
  decisions: ApprovalDecision[],
  extra: ResumeCheckExtra,
): Promise<void> {
  const state = stored as DelegationPauseState;
  if (!state || typeof state !== "object" || !Array.isArray(state.grants)) {
    throw new ApprovalMismatchError(
      extra.toolUseId,
      "state",
      `the stored state of "${tool}" is not a delegation's`,
    );
  }
  const { spawned, child } = resumedChild(target, state);
  try {
    const check = brandOf(child, BRANDS.resumeCheck) as ResumeCheck | undefined;
    if (!check) return;
    let history: ModelMessage[] | undefined;
    if (spawned) {
      history = (state as { history?: unknown }).history as ModelMessage[];
      const problem = findHistoryProblem(history);
      if (problem) {
        throw new ApprovalMismatchError(
          extra.toolUseId,
          "state",
          `the stored conversation of "${tool}" is not a well-formed history (${problem})`,
        );
      }
    }
    const permissions = state.grants.length ? { workspaceGrants: state.grants } : {};
    await check(decisions, { context: extra.context, permissions, signal: extra.signal }, history);
  } catch (error) {
    if (error instanceof ApprovalMismatchError) {
      throw error.toolUseId === extra.toolUseId && !error.agentPath.length ? error : error.within(tool);
    }
    throw error;
  } finally {
    await spawned?.close().catch(() => {});
  }
}

/** Continues a suspended delegation with the decisions for its approvals (ToolDefinition.resume of agentTool). */
export async function resumeDelegatedChild(
  tool: string,
  target: DelegationTarget<any>,
  state: DelegationPauseState,
  decisions: ApprovalDecision[],
  extra: ToolHandlerExtra,
  schema: OutputSchema | undefined,
): Promise<ToolResult> {
  const { spawned, child } = resumedChild(target, state);
  try {
    if (spawned && state.kind === "session") await spawned.replaceHistory(state.history);
    if (typeof child.resume !== "function") {
      return {
        isError: true,
        content: `child_error: the delegated agent "${tool}" paused for approval but cannot be resumed (it has no resume()).`,
      };
    }
    return await runChild(
      tool,
      child,
      options => child.resume!(decisions, options),
      state.grants,
      extra,
      schema,
      spawned,
    );
  } catch (error) {
    return {
      isError: true,
      content: `child_error: the delegated agent could not resume: ${messageOf(error)}`,
    };
  } finally {
    await spawned?.close().catch(() => {});
  }
}

/** Runs the child to completion, streaming its messages into the parent's query. */
async function runChild(
  name: string,
  child: AgentLike<any>,
  start: (options: QueryOptions<any>) => AsyncIterable<SDKMessage>,
  grants: WorkspaceGrant[],
  extra: ToolHandlerExtra,
  schema: OutputSchema | undefined,
  spawned: { getHistory(): Promise<ModelMessage[]> } | undefined,
): Promise<ToolResult> {
  const onInterrupt = () => child.interrupt();
  extra.run.interrupted.addEventListener("abort", onInterrupt, { once: true });
  const queryOptions: QueryOptions<any> = {
    signal: extra.signal,
    parentRunId: extra.run.runId,
    parentToolUseId: extra.toolUseId,
  };
  if (extra.context !== undefined) queryOptions.context = extra.context;
  if (grants.length) queryOptions.permissions = { workspaceGrants: grants };
  if (extra.run.tracer) queryOptions.tracer = extra.run.tracer;
  if (extra.run.requestTimeoutMs !== undefined) queryOptions.requestTimeoutMs = extra.run.requestTimeoutMs;
  let result: SDKResultMessage | undefined;
  try {
    for await (const message of start(queryOptions)) {
      await extra.emit({
        type: "agent_message",
        agent: name,
        tool_use_id: extra.toolUseId,
        message,
        session_id: extra.sessionId,
      });
      if (message.type === "result") result = message;
    }
  } catch (error) {
    // A child made with throwOnError throws its failed result's error: the delegation reports it like any result.
    const thrown = (error as { result?: SDKResultMessage } | undefined)?.result;
    if (AgentLatticeError.isInstance(error) && thrown?.type === "result") result = thrown;
    else {
      return {
        isError: true,
        content: `child_error: the delegated agent failed: ${messageOf(error)}`,
      };
    }
  } finally {
    extra.run.interrupted.removeEventListener("abort", onInterrupt);
  }
  if (!result) return { isError: true, content: "child_error: the delegated agent ended without a result." };
  if (result.subtype === "awaiting_approval") {
    const state: DelegationPauseState = spawned
      ? { kind: "session", history: await spawned.getHistory(), grants }
      : { kind: "live", grants };
    const approvals = (result.pendingApprovals ?? []).map(approval => ({
      ...approval,
      agentPath: [name, ...approval.agentPath],
    }));
    return {
      content: `The delegated agent "${name}" is awaiting approval.`,
      suspend: { approvals, state },
      usage: result.usage,
    };
  }
  const output = await childOutput(result, schema);
  return { content: output.content, ...(output.ok ? {} : { isError: true }), usage: result.usage };
}

function describe(
  name: string,
  description: string | undefined,
  fresh: boolean,
  structured: boolean,
): string {
  const parts = [description?.trim() || `Delegate a task to the "${name}" agent and get its result.`];
  parts.push(
    fresh
      ? "Each call starts a fresh session with no memory of earlier calls, so every task must be self-contained."
      : "Calls go to one long-lived session that remembers earlier tasks.",
  );
  if (structured) parts.push("It returns the target's validated structured output as JSON.");
  return parts.join(" ");
}

function isAgentLike(target: unknown): target is AgentLike<any> {
  const candidate = target as Partial<AgentLike<any>> | null;
  return (
    !!candidate &&
    typeof candidate.query === "function" &&
    typeof candidate.prompt === "function" &&
    typeof candidate.interrupt === "function"
  );
}
