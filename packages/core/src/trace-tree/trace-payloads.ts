import type { ToolResultContent } from "../messages.js";
import type { ContextTraceEvent, ModelRequestData, ResultData, TraceErrorData } from "../trace-events.js";

// What the hosted-tracing adapters (LangSmith, Langfuse) send that does not depend on their libraries: texts
// and payloads built from core's trace events, the same for every backend.

/** An error as one line: `Name [code] (HTTP status): message`. */
export function traceErrorText(error: TraceErrorData): string {
  const code = error.code ? ` [${error.code}]` : "";
  const status = error.status ? ` (HTTP ${error.status})` : "";
  return `${error.name}${code}${status}: ${error.message}`;
}

/** A tool result's text: its string, or its text blocks joined (other blocks as `[type]`). */
export function toolResultText(content: ToolResultContent): string {
  if (typeof content === "string") return content;
  return content.map(block => (block.type === "text" ? block.text : `[${block.type}]`)).join("");
}

/** The error text of a failed result: its error, or its subtype when it carries none; undefined on success. */
export function resultErrorText(data: ResultData): string | undefined {
  if (!data.is_error) return undefined;
  return data.error ? traceErrorText(data.error) : data.subtype;
}

/** What a run's root node shows as its output: the result without its bookkeeping. */
export function resultOutputs(data: ResultData): Record<string, unknown> {
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

/** The system prompt as one text (blocks joined by newlines), or undefined when the request has none. */
export function systemPromptText(system: ModelRequestData["system"]): string | undefined {
  if (system === undefined) return undefined;
  return typeof system === "string" ? system : system.map(block => block.text).join("\n");
}

/** A request's messages as chat UIs show them: the system prompt as the first message, then the history. */
export function requestMessages(request: ModelRequestData): unknown[] {
  const system = systemPromptText(request.system);
  return system === undefined
    ? [...request.messages]
    : [{ role: "system", content: system }, ...request.messages];
}

/**
 * The metadata every backend gets on a run's node: its ids (so a hosted trace can be matched with the JSONL
 * tracer's file), where it came from, its model and tools.
 */
export function runStartMetadata(event: ContextTraceEvent<"run_start">): Record<string, unknown> {
  return {
    agent_lattice_run_id: event.run_id,
    agent_session_id: event.session_id,
    agent_lattice_source: event.source,
    model: event.data.model,
    tools: event.data.tools,
    ...(event.parent_run_id ? { agent_lattice_parent_run_id: event.parent_run_id } : {}),
    ...(event.parent_tool_use_id ? { agent_lattice_parent_tool_use_id: event.parent_tool_use_id } : {}),
  };
}

/** The metadata of a tool call's node. */
export function toolCallMetadata(use: ContextTraceEvent<"tool_use">): Record<string, unknown> {
  return {
    agent_lattice_run_id: use.run_id,
    agent_lattice_turn: use.data.turn,
    tool_use_id: use.data.id,
    tool_name: use.data.name,
  };
}

/** An event's ISO time in epoch ms (now, for a time that does not parse). */
export function traceTimeMs(iso: string): number {
  const value = Date.parse(iso);
  return Number.isNaN(value) ? Date.now() : value;
}
