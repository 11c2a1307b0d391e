// @agent-lattice/testing public API: the Anthropic-compatible mock server, the script vocabulary (turns, tool
// calls, faults) and the in-process scripted ModelClient. The wire encoders behind them stay internal; the raw
// stream event types are core's (`@agent-lattice/core` exports RawStreamEvent).
export {
  type MockAnthropicServer,
  type MockAnthropicServerOptions,
  startMockAnthropicServer,
} from "./mock-server.js";
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
