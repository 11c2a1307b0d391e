import { Agent } from "./agent.js";
import {
  type AgentOptions,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  validateAgentOptions,
} from "./agent-options.js";
import { type AgentSpec, declareOutputSchema } from "./agent-spec.js";
import { createAnthropicModelClient } from "./anthropic-client.js";
import { withCacheControlFallback } from "./cache-control-fallback.js";
import { resolveAutoCompact } from "./compaction.js";
import { Conversation } from "./conversation.js";
import { resolveApprovalKey } from "./decision-seal.js";
import { InvalidOptionError } from "./errors.js";
import type { ModelClient } from "./model-client.js";
import { PromptCacheState } from "./prompt-caching.js";
import type { ProviderParams } from "./provider-params.js";
import { createLoadSkillTool } from "./skills.js";
import { DEFAULT_MAX_OUTPUT_ATTEMPTS } from "./structured-output.js";
import { resolveToolConcurrency } from "./tool-concurrency.js";
import { DEFAULT_TOOL_ABORT_GRACE_MS } from "./tool-execution.js";
import { BUILT_IN_ORIGIN, ToolRegistry } from "./tool-registry.js";
import type { WorkspaceProvider, WorkspaceSession } from "./workspace.js";

/** The defaults a distribution (the agent-lattice umbrella) installs into createAgent(). */
export interface AgentDefaults {
  /** The workspace every createAgent() session gets unless it passes `workspace: false`. */
  workspace?: WorkspaceProvider;
}

/**
 * Builds createAgent() and defineAgent() with `defaults` installed. The umbrella package calls this with the
 * built-in workspace tools; core never imports them.
 */
export function createAgentFactory(defaults: AgentDefaults = {}) {
  function createAgent<TContext = unknown, TOutput = unknown>(
    options: AgentOptions<TContext, TOutput>,
  ): Agent<TContext, TOutput> {
    validateAgentOptions(options);
    assertModelAccess(options);
    const provider = options.workspace === false ? undefined : (options.workspace ?? defaults.workspace);
    return buildAgent(options, provider);
  }
  /** A template: the same options, no state. spawn() makes an independent session (a createAgent() call). */
  function defineAgent<TContext = unknown, TOutput = unknown>(
    options: AgentOptions<TContext, TOutput>,
  ): AgentSpec<TContext, TOutput> {
    // The API key is checked when a session is spawned (used), not when the template is defined.
    validateAgentOptions(options);
    if (options.sessionId !== undefined) {
      throw new InvalidOptionError(
        "defineAgent(): sessionId is not allowed on a template, because every spawn() is a new session and would " +
          "share the id (and its workspace). Pass sessionId to createAgent() for the one session you want to name or resume.",
      );
    }
    const frozen = Object.freeze({ ...options });
    return Object.freeze({
      kind: "agent_spec" as const,
      name: options.name,
      options: frozen,
      spawn: () => createAgent<TContext, TOutput>({ ...frozen }),
    });
  }
  return { createAgent, defineAgent };
}

/** An agent with exactly the prompt and tools the host passes: no workspace, no built-in tools. */
export function createBareAgent<TContext = unknown, TOutput = unknown>(
  options: AgentOptions<TContext, TOutput>,
): Agent<TContext, TOutput> {
  validateAgentOptions(options);
  if (options.workspace !== undefined && options.workspace !== false) {
    throw new InvalidOptionError(
      "AgentOptions.workspace: createBareAgent() never installs a workspace. Use createAgent({ workspace }) instead.",
    );
  }
  assertModelAccess(options);
  return buildAgent(options, undefined);
}

function buildAgent<TContext, TOutput>(
  options: AgentOptions<TContext, TOutput>,
  provider: WorkspaceProvider | undefined,
): Agent<TContext, TOutput> {
  const sessionId = options.sessionId ?? globalThis.crypto.randomUUID();
  const workspace: WorkspaceSession | undefined = provider?.createSession({
    sessionId,
    ...(options.name !== undefined ? { agentName: options.name } : {}),
  });
  const concurrency = resolveToolConcurrency(options.toolConcurrency);
  const tools = new ToolRegistry(
    options.systemPrompt || undefined,
    workspace?.systemPromptSection || undefined,
    concurrency,
    options.outputSchema,
  );
  const skills = options.skills ?? [];
  const skillTools = skills.length ? [createLoadSkillTool(skills)] : [];
  if (workspace?.tools.length) tools.add(workspace.tools, "AgentOptions.tools", BUILT_IN_ORIGIN);
  if (skillTools.length)
    tools.add(skillTools, "AgentOptions.tools", "AgentOptions.skills (the load_skill tool)");
  tools.add(options.tools ?? [], "AgentOptions.tools");
  const providerDefaults: ProviderParams = {};
  if (options.thinkingConfig) providerDefaults.thinkingConfig = options.thinkingConfig;
  if (options.reasoningEffort) providerDefaults.reasoningEffort = options.reasoningEffort;
  if (options.outputFormat) providerDefaults.outputFormat = options.outputFormat;
  const promptCache = new PromptCacheState();
  const agent = new Agent<TContext, TOutput>({
    sessionId,
    model: options.model,
    maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS,
    maxOutputAttempts: options.maxOutputAttempts ?? DEFAULT_MAX_OUTPUT_ATTEMPTS,
    throwOnError: options.throwOnError === true,
    client: withCacheControlFallback(options.modelClient ?? defaultClient(options), promptCache),
    tools,
    permission: options.permission,
    hooks: options.hooks,
    toolBatchPolicy: options.toolBatchPolicy,
    concurrency,
    outputSchema: options.outputSchema,
    providerDefaults,
    promptCaching: options.promptCaching ?? true,
    promptCache,
    conversation: new Conversation(options.historyStore),
    compaction: resolveAutoCompact(options.autoCompact),
    lastInputTokens: 0,
    requestTimeoutMs: options.requestTimeoutMs,
    toolAbortGraceMs: options.toolAbortGraceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS,
    tracer: options.tracer,
    skills,
    name: options.name,
    workspace,
    sessionNamed: options.sessionId !== undefined,
    approvalKey: resolveApprovalKey(options.approvalKey),
  });
  if (options.outputSchema) declareOutputSchema(agent, options.outputSchema);
  return agent;
}

/** Fails at assembly when the built-in client would have no API key. */
function assertModelAccess(options: AgentOptions<any, any>): void {
  if (options.modelClient || options.apiKey || process.env.ANTHROPIC_API_KEY) return;
  throw new InvalidOptionError(
    "AgentOptions: no API key. Pass apiKey (for example apiKey: process.env.DEEPSEEK_API_KEY), set " +
      "ANTHROPIC_API_KEY, or pass a modelClient.",
  );
}

function defaultClient(options: AgentOptions<any, any>): ModelClient {
  return createAnthropicModelClient({
    apiKey: (options.apiKey ?? process.env.ANTHROPIC_API_KEY)!,
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.maxRetryDelayMs !== undefined ? { maxRetryDelayMs: options.maxRetryDelayMs } : {}),
    ...(options.defaultHeaders !== undefined ? { defaultHeaders: options.defaultHeaders } : {}),
  });
}
