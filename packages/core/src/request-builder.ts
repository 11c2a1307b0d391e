import type { QueryOptions } from "./agent-options.js";
import type { AgentRuntime } from "./agent-runtime.js";
import type { AssistantModelMessage, ModelMessage } from "./messages.js";
import type { ModelRequest } from "./model-client.js";
import { toOutputFormatParam, toThinkingParam } from "./provider-params.js";

/**
 * Builds one model request from the session's state and the query's options (a query's provider parameters
 * override the agent's), then lets onModelRequest reshape it. The stored history is never touched.
 */
export async function buildModelRequest(
  runtime: AgentRuntime,
  options: QueryOptions<any>,
  turn: number,
  signal: AbortSignal,
  /** Per-query system-prompt additions (the skills section). */
  extraSystem?: string,
  /** The request's deadline (requestTimeoutMs), passed on so a client can cancel its own work. */
  timeoutMs?: number,
): Promise<ModelRequest> {
  const defaults = runtime.providerDefaults;
  let messages: readonly ModelMessage[] = runtime.conversation.messages;
  let system: ModelRequest["system"] = extraSystem
    ? [runtime.tools.system, extraSystem].filter(Boolean).join("\n\n")
    : runtime.tools.system;
  let tools = runtime.tools.specs;
  const shaped = await runtime.hooks?.onModelRequest?.({
    messages,
    system,
    tools,
    turn,
    model: runtime.model,
    context: options.context,
  });
  if (shaped) {
    messages = shaped.messages ?? messages;
    system = shaped.system ?? system;
    tools = shaped.tools ?? tools;
  }
  const request: ModelRequest = {
    model: runtime.model,
    maxTokens: runtime.maxTokens,
    messages: messages.map(toWireMessage),
    tools,
    signal,
  };
  if (system) request.system = system;
  if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
  const thinking = toThinkingParam(options.thinkingConfig ?? defaults.thinkingConfig, runtime.maxTokens);
  if (thinking) request.thinking = thinking;
  const reasoningEffort = options.reasoningEffort ?? defaults.reasoningEffort;
  if (reasoningEffort) request.reasoningEffort = reasoningEffort;
  const outputFormat = toOutputFormatParam(options.outputFormat ?? defaults.outputFormat);
  if (outputFormat) request.outputFormat = outputFormat;
  return request;
}

/** Provider metadata (providerResponseId, model) stays in our history but is not part of the wire format. */
function toWireMessage(message: ModelMessage): ModelMessage {
  if (message.role !== "assistant") return message;
  const { providerResponseId, model, ...wire } = message as AssistantModelMessage;
  return providerResponseId === undefined && model === undefined ? message : wire;
}
