// @agent-lattice/core public API. Every name here is documented at its definition.

export type { Agent, AgentLike } from "./agent.js";
export {
  type AgentOptions,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  type QueryOptions,
} from "./agent-options.js";
export type { AgentSpec, DelegationTarget } from "./agent-spec.js";
export { type AgentToolOptions, agentTool, type DelegateToolOptions, delegateTool } from "./agent-tool.js";
export type { AgentToolInput, DelegationMode } from "./agent-tool-input.js";
export { type AnthropicModelClientOptions, createAnthropicModelClient } from "./anthropic-client.js";
export {
  type ApprovalDecision,
  approveCall,
  type PendingApproval,
  type PendingBatch,
  type PendingCall,
  type QueryInput,
  type RecordedDecision,
  type ResumeInput,
  rejectCall,
} from "./approvals.js";
export { type CacheControlCarrier, withoutCacheControl } from "./cache-breakpoints.js";
export {
  type AutoCompactOptions,
  DEFAULT_COMPACTION_PROMPT,
} from "./compaction.js";
export {
  AbortError,
  AgentClosedError,
  AgentLatticeError,
  APIError,
  type APIErrorCode,
  ApprovalMismatchError,
  type ApprovalMismatchField,
  ApprovalPendingError,
  ConcurrentQueryError,
  InvalidApprovalError,
  InvalidHistoryError,
  InvalidOptionError,
  InvalidOutputError,
  InvalidPromptError,
  MaxTurnsError,
  MissingOutputError,
  TimeoutError,
} from "./errors.js";
export { type AgentDefaults, createAgentFactory, createBareAgent } from "./factories.js";
export {
  defineHistoryStore,
  type HistoryLoadContext,
  type HistoryStore,
  type HistoryStoreMethods,
} from "./history-store.js";
export {
  type AgentHooks,
  createCompositeAgentHooks,
  type ModelRequestHookInput,
  type ModelRequestHookResult,
  type ToolResultHookInput,
  type TraceEventHookInput,
} from "./hooks.js";
export { createJsonlHistoryStore, type JsonlHistoryStoreOptions } from "./jsonl-history-store.js";
export { createJsonlContextTracer, type JsonlContextTracerOptions } from "./jsonl-tracer.js";
export type {
  AssistantContentBlock,
  AssistantModelMessage,
  Base64Source,
  CacheControl,
  ContentBlock,
  DocumentBlock,
  FileSource,
  ImageBlock,
  ModelMessage,
  PlainTextSource,
  PromptInput,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
  UrlSource,
  UserContentBlock,
  UserModelMessage,
} from "./messages.js";
export type {
  JsonSchemaObject,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelToolSpec,
  OutputFormatParam,
  RawContentBlockDelta,
  RawContentBlockDeltaEvent,
  RawContentBlockStartEvent,
  RawContentBlockStopEvent,
  RawErrorEvent,
  RawMessageDeltaEvent,
  RawMessageStartEvent,
  RawMessageStopEvent,
  RawPingEvent,
  RawStreamEvent,
  ReasoningEffort,
  StopReason,
  ThinkingParam,
} from "./model-client.js";
export { type ChildOutput, childOutput } from "./output-contract.js";
export type { PermissionCallback, PermissionDecision, PermissionRequest } from "./permission.js";
export {
  CACHE_LOOKBACK_BLOCKS,
  MAX_CACHE_BREAKPOINTS,
  type PromptCaching,
} from "./prompt-caching.js";
export type { OutputFormat, ThinkingConfig } from "./provider-params.js";
export type { DelegationRequest, QueryRuntime, TurnBoundary } from "./query-runtime.js";
export type {
  InferSchema,
  JsonSchemaBacked,
  ParseSchema,
  SchemaLike,
  StandardResult,
  StandardSchemaLike,
} from "./schema.js";
export type {
  HistoryLoadWarning,
  ResolvedApproval,
  ResultSubtype,
  SDKAgentMessage,
  SDKApprovalRequestedMessage,
  SDKApprovalResolvedMessage,
  SDKAssistantMessage,
  SDKCompactionMessage,
  SDKHistoryWarningMessage,
  SDKMessage,
  SDKMessageMap,
  SDKResultMessage,
  SDKStreamEventMessage,
  SDKSystemInitMessage,
  SDKToolErrorMessage,
  SDKUserMessage,
} from "./sdk-messages.js";
export { LOAD_SKILL_TOOL_NAME, loadSkill, type Skill, type SkillDefinition, skill } from "./skills.js";
export {
  DEFAULT_MAX_OUTPUT_ATTEMPTS,
  type OutputSchema,
  SUBMIT_OUTPUT_TOOL_NAME,
} from "./structured-output.js";
export {
  type NeedsApproval,
  type ResumeCheckExtra,
  type RunContext,
  type ToolDefinition,
  type ToolFactory,
  type ToolHandler,
  type ToolHandlerExtra,
  type ToolKind,
  type ToolOptions,
  type ToolResult,
  tool,
} from "./tool.js";
export type { ToolBatchCall, ToolBatchDecision, ToolBatchPolicy } from "./tool-batch-policy.js";
export { CONCURRENCY_HINT, DEFAULT_MAX_CONCURRENCY, type ToolConcurrency } from "./tool-concurrency.js";
export type { ToolFailureReason } from "./tool-execution.js";
export type { SourcedToolDefinition, ToolSource } from "./tool-source.js";
export type {
  ApprovalRequestedData,
  ApprovalResolvedData,
  AssistantMessageData,
  CompactionData,
  ContextTraceEnvelope,
  ContextTraceEvent,
  ContextTraceEventDataMap,
  ContextTraceEventType,
  ErrorEventData,
  ModelRequestData,
  ResultData,
  RunStartData,
  ToolResultData,
  ToolUseData,
  TraceErrorData,
  UserMessageData,
} from "./trace-events.js";
export { TRACE_EVENT_VERSION } from "./trace-events.js";
export { readContextTrace, upgradeContextTraceEvent } from "./trace-reader.js";
export {
  type ContextTracer,
  type ContextTracerMethods,
  createCompositeContextTracer,
  defineContextTracer,
  type FailurePolicyOptions,
} from "./tracer.js";
export type { ReportedUsage, Usage } from "./usage.js";
export type { QueryPermissions, WorkspaceGrant, WorkspaceProvider, WorkspaceSession } from "./workspace.js";
