import type { AssistantModelMessage, ModelMessage } from "./messages.js";
import type { ModelRequest, ModelToolSpec } from "./model-client.js";

export interface RequestParts {
  model: string;
  maxTokens: number;
  system: string | undefined;
  tools: readonly ModelToolSpec[];
  history: readonly ModelMessage[];
  signal: AbortSignal;
}

/** Builds one model request from the session's state. History is sent in wire shape (role + content only). */
export function buildModelRequest(parts: RequestParts): ModelRequest {
  const request: ModelRequest = {
    model: parts.model,
    maxTokens: parts.maxTokens,
    messages: parts.history.map(toWireMessage),
    tools: parts.tools as ModelToolSpec[],
    signal: parts.signal,
  };
  if (parts.system) request.system = parts.system;
  return request;
}

/** Provider metadata (providerResponseId, model) stays in our history but is not part of the wire format. */
function toWireMessage(message: ModelMessage): ModelMessage {
  if (message.role !== "assistant") return message;
  const { providerResponseId, model, ...wire } = message as AssistantModelMessage;
  return providerResponseId === undefined && model === undefined ? message : wire;
}
