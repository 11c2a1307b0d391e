import type { ApprovalDecision, PendingApproval } from "./approvals.js";
import { InvalidOptionError } from "./errors.js";
import type { ToolResultContent } from "./messages.js";
import type { JsonSchemaObject } from "./model-client.js";
import { assertKnownOptions } from "./option-validation.js";
import type { QueryRuntime } from "./query-runtime.js";
import { type InferSchema, isSchemaLike, type SchemaLike, toToolInputSchema } from "./schema.js";
import type { SDKMessage } from "./sdk-messages.js";
import type { ContextTracer } from "./tracer.js";
import type { ReportedUsage } from "./usage.js";
import type { QueryPermissions } from "./workspace.js";

/** What a tool handler returns. */
export interface ToolResult {
  /** Sent to the model as the tool_result content. */
  content: ToolResultContent;
  /** Marks the result as a failure the model should react to. */
  isError?: boolean;
  /** Ends the run after this batch with `content` as the result text, without another model call. */
  endTurn?: boolean;
  /** With `endTurn`, carried to `SDKResultMessage.structuredResult`. Ignored without `endTurn`. */
  structuredResult?: unknown;
  /** Tokens this call spent on model requests of its own (a delegated agent); added to the query's usage. */
  usage?: ReportedUsage;
  /**
   * The call paused on approvals inside it (a delegated agent awaiting a person's decision). The query pauses with
   * these approvals surfaced (its other calls finish first); `agent.resume()` later calls the tool's
   * `resume(state, decisions, extra)` with `state` — which must be JSON-serialisable, since it is stored in the
   * history and may be resumed by another process. `content` is ignored.
   */
  suspend?: { approvals: PendingApproval[]; state: unknown };
}

/** Whether a call needs a person's approval before it runs: fixed, or decided from its input and context. */
export type NeedsApproval<TInput = any, TContext = any> =
  | boolean
  | ((input: TInput, context: TContext | undefined) => boolean | Promise<boolean>);

/** The second argument of every tool handler. */
export interface ToolHandlerExtra<TContext = unknown> {
  /** The host data passed as `prompt(..., { context })`; never shown to the model. */
  context: TContext | undefined;
  /**
   * Aborted when the call should stop: the query was aborted or interrupted (delegation tools instead pass the
   * interrupt on to their agent), its consumer stopped reading, or the call's timeoutMs passed. Long-running
   * handlers should stop; one that does not settle within the agent's toolAbortGraceMs is abandoned.
   */
  signal: AbortSignal;
  toolUseId: string;
  sessionId: string;
  /** The query's task-scoped permissions (workspace grants); empty when none were given. */
  permissions: QueryPermissions;
  /**
   * Surfaces a message (a delegated agent's progress) in the running query's stream; resolves once the host
   * has taken it.
   */
  emit(message: SDKMessage): Promise<void>;
  /** The running query, for tools that start runs of their own (delegation). */
  run: RunContext;
}

/** What a delegating tool passes on to the runs it starts. */
export interface RunContext {
  /** This run's id: child runs record it as their parent_run_id. */
  runId: string;
  /** The query's own tracer (behind the agent's onTraceEvent redaction), propagated to delegated agents. */
  tracer: ContextTracer | undefined;
  /** The query's requestTimeoutMs override, propagated to delegated agents. */
  requestTimeoutMs: number | undefined;
  /** Aborted when the query is interrupted, so running delegated agents can be interrupted too. */
  interrupted: AbortSignal;
  /** The runtime hosting the query (a team), when there is one; see QueryRuntime. */
  runtime: QueryRuntime | undefined;
}

export type ToolHandler<TInput, TContext = unknown> = (
  input: TInput,
  extra: ToolHandlerExtra<TContext>,
) => ToolResult | Promise<ToolResult>;

export interface ToolOptions<TInput = any> {
  /** Declares that this call may overlap with other concurrency-safe calls of the same batch. */
  isConcurrencySafe?: (input: TInput) => boolean;
  /**
   * Deadline of one call in ms (default 600000, ten minutes; false for none). When it passes, the handler's signal
   * fires; a handler that still has not settled after the agent's toolAbortGraceMs is abandoned and the call is
   * answered with an error result.
   */
  timeoutMs?: number | false;
  /**
   * The call needs a person's approval before it runs (or a function deciding from the input and context). Unless
   * the permission callback decides, the query ends "awaiting_approval" and agent.resume() continues it.
   */
  needsApproval?: NeedsApproval<TInput>;
  /** Host-owned annotation, passed through to ToolDefinition.metadata; never read by the SDK nor shown to the model. */
  metadata?: Record<string, unknown>;
}

export const TOOL_OPTION_KEYS: ReadonlySet<string> = new Set([
  "isConcurrencySafe",
  "metadata",
  "timeoutMs",
  "needsApproval",
]);

/** "tool" for plain tools; delegation tools say "agent_tool" so batch policies can tell them apart. */
export type ToolKind = "tool" | "agent_tool" | (string & {});

/** A tool the agent can call. Create with `tool()`; treat as immutable. */
export interface ToolDefinition<TInput = any, TContext = any> {
  readonly kind: ToolKind;
  readonly name: string;
  readonly description: string;
  /** JSON Schema sent to the model as `input_schema`. */
  readonly inputSchema: JsonSchemaObject;
  /** Validates the model's input before the handler runs. */
  readonly schema: SchemaLike<TInput>;
  handler(input: TInput, extra: ToolHandlerExtra<TContext>): ToolResult | Promise<ToolResult>;
  isConcurrencySafe?(input: TInput): boolean;
  readonly metadata?: Record<string, unknown>;
  /** Per-call deadline (ms), or false for none. Absent: ten minutes for tools made with tool(), none otherwise. */
  readonly timeoutMs?: number | false;
  /** Whether a call needs a person's approval first (see ToolOptions.needsApproval). */
  readonly needsApproval?: NeedsApproval<TInput, TContext>;
  /** Continues a call that returned `suspend`, once the approvals it surfaced were decided. */
  resume?(
    state: unknown,
    decisions: ApprovalDecision[],
    extra: ToolHandlerExtra<TContext>,
  ): ToolResult | Promise<ToolResult>;
  /**
   * Checks, before any call of the resumed batch runs, that `state` (read back from the history store) still holds
   * the pause the decisions were made for; throws (an ApprovalMismatchError) to refuse the whole resume. agentTool()
   * checks the delegated agent's stored pause the way the agent checks its own.
   */
  checkResume?(
    state: unknown,
    decisions: ApprovalDecision[],
    extra: ResumeCheckExtra<TContext>,
  ): void | Promise<void>;
}

/** What ToolDefinition.checkResume() is given about the resuming query. */
export interface ResumeCheckExtra<TContext = unknown> {
  context: TContext | undefined;
  signal: AbortSignal;
  toolUseId: string;
  sessionId: string;
  permissions: QueryPermissions;
}

/** What `tool<MyContext>()` returns: `tool()` with the handler's `context` typed as `MyContext`. */
export type ToolFactory<TContext> = <S extends SchemaLike<any>>(
  name: string,
  description: string,
  schema: S,
  handler: ToolHandler<InferSchema<S>, TContext>,
  options?: ToolOptions<InferSchema<S>>,
) => ToolDefinition<InferSchema<S>, TContext>;

/** Tool names the Messages API accepts. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/**
 * Defines a tool from a name, a description, a schema (zod 4 works directly) and a handler.
 * Call `tool<MyContext>()` with no arguments to get a factory whose handlers receive a typed `context`.
 */
export function tool<TContext = unknown>(): ToolFactory<TContext>;
export function tool<S extends SchemaLike<any>, TContext = unknown>(
  name: string,
  description: string,
  schema: S,
  handler: ToolHandler<InferSchema<S>, TContext>,
  options?: ToolOptions<InferSchema<S>>,
): ToolDefinition<InferSchema<S>, TContext>;
export function tool(...args: unknown[]): unknown {
  if (args.length === 0) return defineTool;
  return defineTool(...(args as Parameters<typeof defineTool>));
}

function defineTool(
  name: string,
  description: string,
  schema: SchemaLike,
  handler: ToolHandler<any, any>,
  options?: ToolOptions,
): ToolDefinition {
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new InvalidOptionError(
      `tool(): invalid name ${JSON.stringify(name)}. Tool names must match ${TOOL_NAME} (letters, digits, _ and -).`,
    );
  }
  if (typeof description !== "string") {
    throw new InvalidOptionError(`tool("${name}"): description must be a string.`);
  }
  if (!isSchemaLike(schema)) {
    throw new InvalidOptionError(
      `tool("${name}"): the third argument must be a schema (a zod 4 schema, a Standard Schema, or { parse(input) }).`,
    );
  }
  if (typeof handler !== "function") {
    throw new InvalidOptionError(`tool("${name}"): the fourth argument must be the handler function.`);
  }
  assertKnownOptions(options, TOOL_OPTION_KEYS, "ToolOptions");
  if (options?.isConcurrencySafe !== undefined && typeof options.isConcurrencySafe !== "function") {
    throw new InvalidOptionError(`tool("${name}"): isConcurrencySafe must be a function (input) => boolean.`);
  }
  assertNeedsApproval(options?.needsApproval, `tool("${name}")`);
  const timeoutMs = options?.timeoutMs;
  if (
    timeoutMs !== undefined &&
    timeoutMs !== false &&
    !(typeof timeoutMs === "number" && Number.isInteger(timeoutMs) && timeoutMs > 0)
  ) {
    throw new InvalidOptionError(
      `tool("${name}"): timeoutMs must be a positive integer (milliseconds) or false, got ${JSON.stringify(timeoutMs)}.`,
    );
  }
  const definition: ToolDefinition = {
    kind: "tool",
    name,
    description,
    inputSchema: toToolInputSchema(schema, `tool("${name}")`),
    schema,
    handler,
    ...(options?.isConcurrencySafe ? { isConcurrencySafe: options.isConcurrencySafe } : {}),
    ...(options?.metadata !== undefined ? { metadata: options.metadata } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(options?.needsApproval !== undefined ? { needsApproval: options.needsApproval } : {}),
  };
  return Object.freeze(definition);
}

export function assertNeedsApproval(value: unknown, owner: string): void {
  if (value === undefined || typeof value === "boolean" || typeof value === "function") return;
  throw new InvalidOptionError(
    `${owner}: needsApproval must be a boolean or a function (input, context) => boolean, got ${typeof value}.`,
  );
}
