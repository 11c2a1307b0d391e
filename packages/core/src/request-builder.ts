import type { QueryOptions } from "./agent-options.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { placeCacheBreakpoints } from "./cache-breakpoints.js";
import type { AssistantModelMessage, CacheControl, ModelMessage } from "./messages.js";
import type { ModelRequest } from "./model-client.js";
import { toCacheControl } from "./prompt-caching.js";
import { toOutputFormatParam, toThinkingParam } from "./provider-params.js";

/**
 * Builds one model request from the session's state and the query's options (a query's provider parameters
 * override the agent's), places the prompt-cache breakpoints, then lets onModelRequest reshape it (it sees the
 * breakpoints and may move or drop them). The stored history is never touched: breakpoints go on copies.
 *
 * Byte stability: everything before the newest message is rebuilt identically on every turn (the system
 * sections and tools come from the session, in a fixed order; earlier messages are sent as stored), so each
 * request's prefix matches the cache entry the previous request wrote. Compaction is the one deliberate reset.
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
  // Tools from a ToolSource (an MCP server) whose list changed since the last request are re-read first.
  if (runtime.tools.hasSources) await runtime.tools.refresh();
  const defaults = runtime.providerDefaults;
  let messages: readonly ModelMessage[] = runtime.conversation.messages;
  let system: ModelRequest["system"];
  let tools = runtime.tools.specs;
  const marker = cacheMarkerFor(runtime, options);
  if (marker) {
    const marked = placeCacheBreakpoints(
      { tools, system: { ...runtime.tools.systemParts, query: extraSystem }, messages },
      marker,
    );
    ({ messages, system, tools } = marked);
  } else {
    system = extraSystem
      ? [runtime.tools.system, extraSystem].filter(Boolean).join("\n\n")
      : runtime.tools.system;
  }
  const onModelRequest = runtime.hooks?.onModelRequest;
  const shaped = onModelRequest
    ? await onModelRequest.call(runtime.hooks, {
        messages,
        system,
        tools,
        turn,
        model: runtime.model,
        context: options.context,
      })
    : undefined;
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
  if (system && !(Array.isArray(system) && system.length === 0)) request.system = system;
  if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
  const thinking = toThinkingParam(options.thinkingConfig ?? defaults.thinkingConfig, runtime.maxTokens);
  if (thinking) request.thinking = thinking;
  const reasoningEffort = options.reasoningEffort ?? defaults.reasoningEffort;
  if (reasoningEffort) request.reasoningEffort = reasoningEffort;
  const outputFormat = toOutputFormatParam(options.outputFormat ?? defaults.outputFormat);
  if (outputFormat) request.outputFormat = outputFormat;
  return request;
}

/** The query's promptCaching over the agent's; none once the provider has refused the field. */
function cacheMarkerFor(runtime: AgentRuntime, options: QueryOptions<any>): CacheControl | undefined {
  if (runtime.promptCache.rejected) return undefined;
  return toCacheControl(options.promptCaching ?? runtime.promptCaching);
}

/**
 * Wire forms of stored assistant messages. History messages are never mutated in place (a change replaces the
 * message), so each is converted once, not on every later turn of a long loop.
 */
const wireForms = new WeakMap<ModelMessage, ModelMessage>();

/** Provider metadata (providerResponseId, model) stays in our history but is not part of the wire format. */
function toWireMessage(message: ModelMessage): ModelMessage {
  if (message.role !== "assistant") return message;
  let wire = wireForms.get(message);
  if (!wire) {
    const { providerResponseId, model, pendingBatch, ...rest } = message as AssistantModelMessage;
    wire =
      providerResponseId === undefined && model === undefined && pendingBatch === undefined ? message : rest;
    wireForms.set(message, wire);
  }
  return wire;
}
