import { type AutoCompactOptions, resolveAutoCompact } from "./compaction.js";
import { assertApprovalKey } from "./decision-seal.js";
import { InvalidOptionError } from "./errors.js";
import { assertHistoryStore, type HistoryStore } from "./history-store.js";
import { type AgentHooks, validateHooks } from "./hooks.js";
import type { ModelClient, ReasoningEffort } from "./model-client.js";
import {
  assertBoolean,
  assertHttpUrl,
  assertKnownOptions,
  assertPositiveInteger,
} from "./option-validation.js";
import type { PermissionCallback } from "./permission.js";
import { type PromptCaching, validatePromptCaching } from "./prompt-caching.js";
import {
  type OutputFormat,
  type ProviderParams,
  type ThinkingConfig,
  validateProviderParams,
} from "./provider-params.js";
import type { QueryRuntime } from "./query-runtime.js";
import { isSchemaLike } from "./schema.js";
import { assertSkills, type Skill } from "./skills.js";
import type { OutputSchema } from "./structured-output.js";
import type { ToolDefinition } from "./tool.js";
import { type ToolBatchPolicy, validateToolBatchPolicy } from "./tool-batch-policy.js";
import { resolveToolConcurrency, type ToolConcurrency } from "./tool-concurrency.js";
import { assertContextTracer, type ContextTracer } from "./tracer.js";
import type { QueryPermissions, WorkspaceProvider } from "./workspace.js";

export const DEFAULT_MAX_TOKENS = 8192;
export const DEFAULT_MAX_TURNS = 100;

/** Options of createAgent() / createBareAgent(). Unknown keys throw. */
export interface AgentOptions<TContext = unknown, TOutput = unknown> {
  /** Model name, passed to the provider unchanged. */
  model: string;
  /** Provider API key. Defaults to the ANTHROPIC_API_KEY environment variable. */
  apiKey?: string;
  /** Anthropic-compatible endpoint, e.g. "https://api.deepseek.com/anthropic". */
  baseURL?: string;
  /** A name for this agent, used in tool descriptions, traces and team rosters. */
  name?: string;
  systemPrompt?: string;
  tools?: ToolDefinition<any, TContext>[];
  /** Output token budget of each model request (default 8192). */
  maxTokens?: number;
  /**
   * Model requests a query may make before it ends with error_max_turns (default 100; see docs/streaming-events.md
   * for why it is higher than other SDKs' defaults).
   */
  maxTurns?: number;
  /**
   * With outputSchema: how many responses with a rejected submit_output (input that fails the schema, or not alone
   * in its response) a query tolerates; the last one ends it with error_invalid_output and an InvalidOutputError
   * that says what was invalid (default 3).
   */
  maxOutputAttempts?: number;
  /**
   * The thrown style: a query that ends with an error_* subtype throws its typed error (prompt() rejects, query()'s
   * iterator throws instead of yielding the result), with the result on `error.result`. Default false: the error
   * is returned as the result's subtype and `error`. "interrupted" and "awaiting_approval" never throw.
   */
  throwOnError?: boolean;
  /** Asked before every tool call; a deny becomes an error tool_result the model can read. */
  permission?: PermissionCallback<TContext>;
  /** Replaces the built-in Anthropic client (a gateway, a cache, createScriptedModelClient() in tests). */
  modelClient?: ModelClient;
  /** Retries of the built-in client on 408/409/429/5xx and connection errors (default 2, as @anthropic-ai/sdk). */
  maxRetries?: number;
  /**
   * The longest provider-requested wait (`retry-after`) the built-in client honours, in ms (default 60000). A
   * longer one surfaces the provider's 429/529 at once. Retry waits end with the query.
   */
  maxRetryDelayMs?: number;
  /** Extra HTTP headers for the built-in client. */
  defaultHeaders?: Record<string, string>;
  /** createAgent() only: the workspace provider, or false for a bare agent. */
  workspace?: WorkspaceProvider | false;
  /** Reasoning for every query (a query may override it). Omitted: no thinking parameter is sent. */
  thinkingConfig?: ThinkingConfig;
  /** Top-level `reasoning_effort` for providers that take it (Kimi K3). Omitted: not sent. */
  reasoningEffort?: ReasoningEffort;
  /** Ask the provider for JSON final text ("json") or JSON matching a schema; the text is returned unchanged. */
  outputFormat?: OutputFormat;
  /** The run must deliver a typed result through the injected submit_output tool. */
  outputSchema?: OutputSchema<TOutput>;
  /** Which calls of one model response may run at the same time. */
  toolConcurrency?: ToolConcurrency;
  /** Sees each whole tool batch before any tool runs and may reject it. */
  toolBatchPolicy?: ToolBatchPolicy;
  /** onToolResult / onModelRequest: shape results and requests. */
  hooks?: AgentHooks<TContext>;
  /** Seeds the history (lazily, before the first query) and mirrors every later write. */
  historyStore?: HistoryStore;
  /** Replace older history with a model-written summary when the context grows too large. */
  autoCompact?: boolean | AutoCompactOptions;
  /** Deadline of each single model request (error_timeout + TimeoutError when exceeded). */
  requestTimeoutMs?: number;
  /**
   * How long (ms, default 1000) a tool handler told to stop — the query was aborted or interrupted or its consumer
   * stopped, or the call passed its timeoutMs — may take to settle before it is abandoned and answered with an
   * error result.
   */
  toolAbortGraceMs?: number;
  /** Observes every run of this agent. */
  tracer?: ContextTracer;
  /** Instruction bundles: listed to the model, injected in full when a prompt selects them. */
  skills?: Skill[];
  /**
   * Prompt caching (default true): core marks cache breakpoints so each request reads the previous one's prefix
   * from the provider's cache. `{ ttl: "1h" }` for the one-hour lifetime; false sends no breakpoints.
   */
  promptCaching?: PromptCaching;
  /**
   * This session's id (default: a random UUID). Name it to resume a session in a new process: with the same
   * historyStore it continues the conversation, and the workspace provider maps the same id to the same private
   * workspace, so the earlier files are there. Two live agents with one id share that workspace. Not accepted by
   * defineAgent(): every spawn is a new session.
   */
  sessionId?: string;
  /**
   * A secret (at least 32 bytes) that seals the approval decisions this agent records in its history when a resume
   * decides only some calls of a paused batch, so that a decision written into the store by anyone else is
   * refused. Give every process that resumes the session's approvals the same key. Default: a random key per Agent
   * object, never stored — recorded decisions are then honoured only by the Agent that recorded them.
   */
  approvalKey?: string | Uint8Array;
}

export const AGENT_OPTION_KEYS: ReadonlySet<string> = new Set([
  "model",
  "apiKey",
  "baseURL",
  "name",
  "systemPrompt",
  "tools",
  "maxTokens",
  "maxTurns",
  "maxOutputAttempts",
  "throwOnError",
  "permission",
  "modelClient",
  "maxRetries",
  "maxRetryDelayMs",
  "defaultHeaders",
  "workspace",
  "thinkingConfig",
  "reasoningEffort",
  "outputFormat",
  "outputSchema",
  "toolConcurrency",
  "toolBatchPolicy",
  "hooks",
  "historyStore",
  "autoCompact",
  "requestTimeoutMs",
  "toolAbortGraceMs",
  "tracer",
  "skills",
  "promptCaching",
  "sessionId",
  "approvalKey",
]);

/** Per-query options of query() / prompt(). Unknown keys throw. */
export interface QueryOptions<TContext = unknown> extends ProviderParams {
  /** false sends non-streaming model requests and yields no stream_event (default true). */
  stream?: boolean;
  /** Host data for tool handlers; never put into the transcript. */
  context?: TContext;
  /** Cancels the whole query (subtype "error_abort"). */
  signal?: AbortSignal;
  /** Overrides the agent's maxTurns for this query. */
  maxTurns?: number;
  /** Overrides the agent's throwOnError for this query. */
  throwOnError?: boolean;
  /** Task-scoped grants (e.g. shared workspace roots) that the built-in write tools enforce. */
  permissions?: QueryPermissions;
  /** Overrides the agent's per-request deadline for this query. */
  requestTimeoutMs?: number;
  /** Observes this query (in addition to the agent's tracer); delegated agents receive it too. */
  tracer?: ContextTracer;
  /** Links this run's trace events to the run that started it (set by delegation and teams). */
  parentRunId?: string;
  /** Overrides the agent's promptCaching for this query. */
  promptCaching?: PromptCaching;
  /** The parent's tool call that started this run (set by delegation and teams), recorded on its trace events. */
  parentToolUseId?: string;
  /** The runtime hosting this query (set by a team runtime); see QueryRuntime. */
  runtime?: QueryRuntime;
}

export const QUERY_OPTION_KEYS: ReadonlySet<string> = new Set([
  "stream",
  "context",
  "signal",
  "maxTurns",
  "throwOnError",
  "permissions",
  "thinkingConfig",
  "reasoningEffort",
  "outputFormat",
  "requestTimeoutMs",
  "tracer",
  "parentRunId",
  "promptCaching",
  "parentToolUseId",
  "runtime",
]);

export function validateAgentOptions(options: AgentOptions<any, any>): void {
  if (options === null || typeof options !== "object") {
    throw new InvalidOptionError(
      'AgentOptions: expected an options object such as { model: "claude-sonnet-4-6" }.',
    );
  }
  assertKnownOptions(options, AGENT_OPTION_KEYS, "AgentOptions");
  if (options.model === undefined) {
    throw new InvalidOptionError(
      'AgentOptions: "model" is required, e.g. model: "claude-sonnet-4-6" or "deepseek-v4-flash".',
    );
  }
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw new InvalidOptionError(
      `AgentOptions.model must be a non-empty model name string such as "claude-sonnet-4-6" or "deepseek-v4-flash", got ${
        typeof options.model === "string" ? "an empty string" : typeof options.model
      }.`,
    );
  }
  assertHttpUrl(options.baseURL, "AgentOptions.baseURL");
  assertPositiveInteger(options.maxTokens, "AgentOptions.maxTokens");
  assertPositiveInteger(options.maxTurns, "AgentOptions.maxTurns");
  assertPositiveInteger(options.maxOutputAttempts, "AgentOptions.maxOutputAttempts");
  assertBoolean(options.throwOnError, "AgentOptions.throwOnError");
  if (
    options.maxRetries !== undefined &&
    !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)
  ) {
    throw new InvalidOptionError("AgentOptions.maxRetries must be a non-negative integer.");
  }
  if (options.tools !== undefined && !Array.isArray(options.tools)) {
    throw new InvalidOptionError("AgentOptions.tools must be an array of tools created with tool().");
  }
  if (options.permission !== undefined && typeof options.permission !== "function") {
    throw new InvalidOptionError("AgentOptions.permission must be a function (request) => decision.");
  }
  validateProviderParams(options, "AgentOptions");
  if (options.outputSchema !== undefined && !isSchemaLike(options.outputSchema)) {
    throw new InvalidOptionError(
      "AgentOptions.outputSchema must be a schema: a zod schema, a Standard Schema, or an object with parse(input).",
    );
  }
  resolveToolConcurrency(options.toolConcurrency);
  validateToolBatchPolicy(options.toolBatchPolicy);
  validateHooks(options.hooks);
  assertHistoryStore(options.historyStore);
  resolveAutoCompact(options.autoCompact);
  assertPositiveInteger(options.requestTimeoutMs, "AgentOptions.requestTimeoutMs");
  assertPositiveInteger(options.maxRetryDelayMs, "AgentOptions.maxRetryDelayMs");
  assertPositiveInteger(options.toolAbortGraceMs, "AgentOptions.toolAbortGraceMs");
  assertContextTracer(options.tracer, "AgentOptions.tracer");
  assertSkills(options.skills);
  validatePromptCaching(options.promptCaching, "AgentOptions");
  assertSessionId(options.sessionId);
  assertApprovalKey(options.approvalKey, "AgentOptions.approvalKey");
  const client = options.modelClient;
  if (client !== undefined && (client === null || typeof client.create !== "function")) {
    throw new InvalidOptionError(
      "AgentOptions.modelClient must implement the ModelClient port: { create(request), stream?(request) }.",
    );
  }
}

/** Session ids name workspaces, traces and history: printable, bounded, never blank. */
function assertSessionId(sessionId: unknown): void {
  if (sessionId === undefined) return;
  if (
    typeof sessionId !== "string" ||
    sessionId.trim() === "" ||
    sessionId.length > 200 ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here.
    /[\u0000-\u001f\u007f]/.test(sessionId)
  ) {
    throw new InvalidOptionError(
      `AgentOptions.sessionId must be a non-empty string of at most 200 printable characters (for example "ada" or a UUID), got ${JSON.stringify(sessionId)}.`,
    );
  }
}

export function validateQueryOptions(options: QueryOptions<any> | undefined): void {
  assertKnownOptions(options, QUERY_OPTION_KEYS, "QueryOptions");
  assertPositiveInteger(options?.maxTurns, "QueryOptions.maxTurns");
  assertBoolean(options?.throwOnError, "QueryOptions.throwOnError");
  validateQueryPermissions(options?.permissions);
  if (options) validateProviderParams(options, "QueryOptions");
  assertPositiveInteger(options?.requestTimeoutMs, "QueryOptions.requestTimeoutMs");
  assertContextTracer(options?.tracer, "QueryOptions.tracer");
  validatePromptCaching(options?.promptCaching, "QueryOptions");
  if (options?.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new InvalidOptionError("QueryOptions.signal must be an AbortSignal.");
  }
  for (const key of ["parentRunId", "parentToolUseId"] as const) {
    if (options?.[key] !== undefined && (typeof options[key] !== "string" || options[key] === "")) {
      throw new InvalidOptionError(`QueryOptions.${key} must be a non-empty string.`);
    }
  }
  validateQueryRuntime(options?.runtime);
}

function validateQueryRuntime(runtime: QueryRuntime | undefined): void {
  if (runtime === undefined) return;
  const ok =
    !!runtime &&
    typeof runtime === "object" &&
    (runtime.delegate === undefined || typeof runtime.delegate === "function") &&
    (runtime.pendingInput === undefined || typeof runtime.pendingInput === "function");
  if (!ok) {
    throw new InvalidOptionError(
      "QueryOptions.runtime must be a QueryRuntime: an object with optional delegate(request, extra) and pendingInput(boundary) methods.",
    );
  }
}

/** Tools must have unique names: the model addresses them by name. */
export function assertUniqueToolNames(tools: readonly ToolDefinition[], where = "AgentOptions.tools"): void {
  const seen = new Set<string>();
  for (const candidate of tools) {
    if (!candidate || typeof candidate.name !== "string" || typeof candidate.handler !== "function") {
      throw new InvalidOptionError(`${where}: every entry must be a tool created with tool().`);
    }
    if (seen.has(candidate.name)) {
      throw new InvalidOptionError(
        `${where}: two tools are named "${candidate.name}". Tool names must be unique within an agent.`,
      );
    }
    seen.add(candidate.name);
  }
}

function validateQueryPermissions(permissions: QueryPermissions | undefined): void {
  if (permissions === undefined) return;
  assertKnownOptions(permissions, new Set(["workspaceGrants"]), "QueryOptions.permissions");
  const grants = permissions.workspaceGrants;
  if (grants === undefined) return;
  if (!Array.isArray(grants)) {
    throw new InvalidOptionError(
      "QueryOptions.permissions.workspaceGrants must be an array of { root, access, reason }.",
    );
  }
  for (const grant of grants) {
    if (!grant || typeof grant.root !== "string" || grant.root === "" || !Array.isArray(grant.access)) {
      throw new InvalidOptionError(
        `QueryOptions.permissions.workspaceGrants: each grant needs a root path and an access list, e.g. { root: "/srv/shared", access: ["write"], reason: "…" }; got ${JSON.stringify(grant)}.`,
      );
    }
    for (const access of grant.access) {
      if (access !== "write") {
        throw new InvalidOptionError(
          `QueryOptions.permissions.workspaceGrants: unknown access "${String(access)}" for root ${grant.root}. The only access category is "write" (it covers Write, Edit and Bash writes).`,
        );
      }
    }
  }
}
