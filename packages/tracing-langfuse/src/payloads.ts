import type {
  AssistantMessageData,
  ModelRequestData,
  ResultData,
  ToolResultContent,
  TraceErrorData,
  Usage,
} from "@agent-lattice/core";

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
  const system = systemText(request.system);
  return {
    model: request.model,
    max_tokens: request.max_tokens,
    messages: [...(system === undefined ? [] : [{ role: "system", content: system }]), ...request.messages],
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

export function resultOutput(data: ResultData): Record<string, unknown> {
  return {
    subtype: data.subtype,
    result: data.result,
    ...(data.structuredResult !== undefined ? { structuredResult: data.structuredResult } : {}),
    is_error: data.is_error,
    usage: data.usage,
    stop_reason: data.stop_reason,
    num_turns: data.num_turns,
    duration_ms: data.duration_ms,
  };
}

export function resultError(data: ResultData): string | undefined {
  if (!data.is_error) return undefined;
  return data.error ? errorText(data.error) : data.subtype;
}

export function errorText(error: TraceErrorData): string {
  const code = error.code ? ` [${error.code}]` : "";
  const status = error.status ? ` (HTTP ${error.status})` : "";
  return `${error.name}${code}${status}: ${error.message}`;
}

export function contentText(content: ToolResultContent): string {
  if (typeof content === "string") return content;
  return content.map(block => (block.type === "text" ? block.text : `[${block.type}]`)).join("");
}

function systemText(system: ModelRequestData["system"]): string | undefined {
  if (system === undefined) return undefined;
  return typeof system === "string" ? system : system.map(block => block.text).join("\n");
}

export function date(iso: string): Date {
  const value = new Date(iso);
  return Number.isNaN(value.getTime()) ? new Date() : value;
}
