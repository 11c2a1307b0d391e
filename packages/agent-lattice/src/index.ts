// agent-lattice: the umbrella package. Re-exports every public name of the scoped packages and wires
// the defaults (createAgent's workspace) that core leaves to a distribution.
export * from "@agent-lattice/builtin-tools";
export * from "@agent-lattice/core";
// The offline Anthropic-compatible mock server and scripted client. Core owns the canonical raw stream
// event types, so the mock's own copies of them are not re-exported here.
export {
  type AnthropicErrorBody,
  createScriptedModelClient,
  dropConnection,
  hang,
  httpError,
  invalidRequest,
  type MockAnthropicServer,
  type MockAnthropicServerOptions,
  type MockContentBlock,
  type MockFault,
  type MockResponder,
  type MockScriptItem,
  type MockToolCall,
  type MockTurn,
  type MockTurnOptions,
  type MockUsage,
  overloaded,
  promptTooLong,
  type RecordedRequest,
  rateLimited,
  type ScriptedModelClient,
  type ScriptedModelClientOptions,
  ScriptedModelError,
  type ScriptedModelRequest,
  type ScriptedModelResponse,
  type ScriptedRequest,
  type ScriptedResponder,
  serverError,
  startMockAnthropicServer,
  streamError,
  text,
  textTurn,
  thinking,
  toolTurn,
  toolUse,
  turn,
  unauthorized,
} from "@agent-lattice/testing";
export { createAgent, defineAgent } from "./create-agent.js";
