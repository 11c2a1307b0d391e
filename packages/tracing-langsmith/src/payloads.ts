import type { AssistantMessageData, ModelRequestData, Usage } from "@agent-lattice/core";
import { requestMessages } from "@agent-lattice/core/internal";

/**
 * What LangSmith reads from an llm run's usage: `usage_metadata` with `input_tokens`, `output_tokens`,
 * `total_tokens` and `input_token_details` (`cache_read`, `cache_creation`) — the shape of langsmith's own
 * Anthropic integrations. Anthropic reports cache reads and writes beside (not inside) `input_tokens`, and
 * LangSmith prices `input_tokens` cache-inclusive, so the cache counts are summed into it.
 */
export interface UsageMetadata {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_token_details?: { cache_read?: number; cache_creation?: number };
}

export function usageMetadata(usage: Usage): UsageMetadata {
  const cacheRead = usage.cache_read_input_tokens;
  const cacheCreation = usage.cache_creation_input_tokens;
  const input = usage.input_tokens + cacheRead + cacheCreation;
  const details = {
    ...(cacheRead ? { cache_read: cacheRead } : {}),
    ...(cacheCreation ? { cache_creation: cacheCreation } : {}),
  };
  return {
    input_tokens: input,
    output_tokens: usage.output_tokens,
    total_tokens: input + usage.output_tokens,
    ...(Object.keys(details).length ? { input_token_details: details } : {}),
  };
}

/** An llm run's inputs: the request as sent, with the system prompt as the first message (as LangSmith shows chats). */
export function llmInputs(request: ModelRequestData): Record<string, unknown> {
  return {
    model: request.model,
    max_tokens: request.max_tokens,
    messages: requestMessages(request),
    tools: request.tools,
    ...(request.thinking ? { thinking: request.thinking } : {}),
    ...(request.reasoning_effort ? { reasoning_effort: request.reasoning_effort } : {}),
    ...(request.output_format ? { output_format: request.output_format } : {}),
  };
}

export function llmOutputs(data: AssistantMessageData): Record<string, unknown> {
  return {
    message: data.message,
    stop_reason: data.stop_reason,
    usage_metadata: usageMetadata(data.usage),
  };
}
