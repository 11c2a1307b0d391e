import type { ResolvedCompaction } from "./compaction.js";
import type { Conversation } from "./conversation.js";
import type { ApprovalKey } from "./decision-seal.js";
import type { AgentHooks } from "./hooks.js";
import type { ModelClient } from "./model-client.js";
import type { PermissionCallback } from "./permission.js";
import type { PromptCacheState, PromptCaching } from "./prompt-caching.js";
import type { ProviderParams } from "./provider-params.js";
import type { Skill } from "./skills.js";
import type { OutputSchema } from "./structured-output.js";
import type { ToolBatchPolicy } from "./tool-batch-policy.js";
import type { ResolvedConcurrency } from "./tool-concurrency.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { ContextTracer } from "./tracer.js";
import type { WorkspaceSession } from "./workspace.js";

/** Everything one agent session runs with: its configuration, its tools and its conversation. */
export interface AgentRuntime {
  readonly sessionId: string;
  readonly model: string;
  readonly maxTokens: number;
  readonly maxTurns: number;
  /** With outputSchema: rejected submit_output responses a query tolerates. */
  readonly maxOutputAttempts: number;
  /** Queries throw their typed error instead of returning an error result (a query's own option wins). */
  readonly throwOnError: boolean;
  readonly client: ModelClient;
  readonly tools: ToolRegistry;
  readonly permission: PermissionCallback<any> | undefined;
  readonly hooks: AgentHooks<any> | undefined;
  readonly toolBatchPolicy: ToolBatchPolicy | undefined;
  readonly concurrency: ResolvedConcurrency;
  readonly outputSchema: OutputSchema | undefined;
  /** Agent-level defaults; a query's own values win. */
  readonly providerDefaults: ProviderParams;
  /** The agent's promptCaching (a query's own value wins). */
  readonly promptCaching: PromptCaching;
  /** Whether the provider refused cache_control (then no breakpoints are sent). */
  readonly promptCache: PromptCacheState;
  /** The conversation (mirrored to the history store, when one is set). */
  readonly conversation: Conversation;
  readonly compaction: ResolvedCompaction | undefined;
  /** Input tokens the latest response reported: compaction runs before the next request when it is too high. */
  lastInputTokens: number;
  readonly requestTimeoutMs: number | undefined;
  /** How long a tool told to stop may take to settle before it is abandoned. */
  readonly toolAbortGraceMs: number;
  readonly tracer: ContextTracer | undefined;
  readonly skills: readonly Skill[];
  /** Shown as the `source` of trace events. */
  readonly name: string | undefined;
  /** The session's workspace (tools, prompt section, close()), when a provider installed one. */
  readonly workspace: WorkspaceSession | undefined;
  /** The host named the session (AgentOptions.sessionId): it may be resumed, so close() keeps its workspace. */
  readonly sessionNamed: boolean;
  /** Seals the approval decisions this agent records in its history (AgentOptions.approvalKey, or random). */
  readonly approvalKey: ApprovalKey;
}
