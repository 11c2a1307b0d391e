import type { Usage } from "@agent-lattice/core";
import { isRecord, num, str } from "./trace-event.js";

/** Readers of the value shapes several event types share (usage, errors), tolerant of malformed input. */

export interface ErrorInfo {
  name?: string;
  code?: string;
  message?: string;
  status?: number;
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function usageOf(value: unknown): Usage {
  const usage = isRecord(value) ? value : {};
  return {
    input_tokens: num(usage.input_tokens) ?? 0,
    output_tokens: num(usage.output_tokens) ?? 0,
    cache_creation_input_tokens: num(usage.cache_creation_input_tokens) ?? 0,
    cache_read_input_tokens: num(usage.cache_read_input_tokens) ?? 0,
  };
}

export function addInto(total: Usage, usage: Usage): void {
  total.input_tokens += usage.input_tokens;
  total.output_tokens += usage.output_tokens;
  total.cache_creation_input_tokens += usage.cache_creation_input_tokens;
  total.cache_read_input_tokens += usage.cache_read_input_tokens;
}

export function errorInfo(value: unknown): ErrorInfo {
  const error = isRecord(value) ? value : {};
  const info: ErrorInfo = {};
  const name = str(error.name);
  const code = str(error.code);
  const message = str(error.message);
  const status = num(error.status);
  if (name !== undefined) info.name = name;
  if (code !== undefined) info.code = code;
  if (message !== undefined) info.message = message;
  if (status !== undefined) info.status = status;
  return info;
}
