import type { AssistantMessageData, ModelRequestData, Usage } from "@agent-lattice/core";
import { requestMessages } from "@agent-lattice/core/internal";

/**
 * Langfuse usage for an Anthropic-style turn: the buckets Langfuse's Anthropic model prices use — `input` (the
 * uncached input: Anthropic's input_tokens already excludes cache reads and writes), `output`,
 * `cache_read_input_tokens`, `cache_creation_input_tokens` (when non-zero) — and `total`.
 */
export function usageDetails(usage: Usage): Record<string, number> {
  const details: Record<string, number> = { input: usage.input_tokens, output: usage.output_tokens };
  if (usage.cache_read_input_tokens) details.cache_read_input_tokens = usage.cache_read_input_tokens;
  if (usage.cache_creation_input_tokens)
    details.cache_creation_input_tokens = usage.cache_creation_input_tokens;
  details.total =
    usage.input_tokens +
    usage.output_tokens +
    usage.cache_read_input_tokens +
    usage.cache_creation_input_tokens;
  return details;
}

/** A generation's input: the request as sent, with the system prompt as the first message. */
export function generationInput(request: ModelRequestData): Record<string, unknown> {
  return {
    model: request.model,
    max_tokens: request.max_tokens,
    messages: requestMessages(request),
    tools: request.tools,
  };
}

/** Langfuse model parameters are flat string or number values. */
export function modelParameters(request: ModelRequestData): Record<string, string | number> {
  return {
    max_tokens: request.max_tokens,
    ...(request.thinking ? { thinking: JSON.stringify(request.thinking) } : {}),
    ...(request.reasoning_effort ? { reasoning_effort: request.reasoning_effort } : {}),
    ...(request.output_format ? { output_format: JSON.stringify(request.output_format) } : {}),
  };
}

export function generationOutput(data: AssistantMessageData): Record<string, unknown> {
  return { message: data.message, stop_reason: data.stop_reason };
}
