// @agent-lattice/testing public API: the Anthropic-compatible mock server, the script vocabulary (turns, tool
// calls, faults), the in-process scripted ModelClient and the prompt-cache simulation. The wire encoders behind
// them stay internal; the raw stream event types are core's (`@agent-lattice/core` exports RawStreamEvent).
export {
  type MockAnthropicServer,
  type MockAnthropicServerOptions,
  startMockAnthropicServer,
} from "./mock-server.js";
export {
  cacheBreakpoints,
  estimateTokens,
  type PromptBlock,
  promptBlocks,
  systemText,
} from "./prompt-blocks.js";
export {
  defaultMinCacheableTokens,
  type PromptCacheBreakpoint,
  type PromptCacheOptions,
  type PromptCacheOutcome,
  type PromptCachePlan,
  PromptCacheRequestError,
  PromptCacheSimulator,
  type PromptCacheUsage,
} from "./prompt-cache.js";
export {
  dropConnection,
  hang,
  httpError,
  invalidRequest,
  type MockFault,
  type MockResponder,
  type MockScriptItem,
  type MockToolCall,
  type MockTurn,
  type MockTurnOptions,
  overloaded,
  promptTooLong,
  rateLimited,
  serverError,
  streamError,
  text,
  textTurn,
  thinking,
  toolTurn,
  toolUse,
  turn,
  unauthorized,
} from "./script.js";
export {
  createScriptedModelClient,
  type ScriptedModelClient,
  type ScriptedModelClientOptions,
  ScriptedModelError,
  type ScriptedModelRequest,
  type ScriptedModelResponse,
  type ScriptedRequest,
  type ScriptedResponder,
} from "./scripted-client.js";
export type { AnthropicErrorBody, MockContentBlock, MockUsage, RecordedRequest } from "./wire.js";
