import type {
  ContextTraceEnvelope,
  ContextTraceEventDataMap,
  ContextTraceEventType,
} from "@agent-lattice/core";

/**
 * A trace event as the viewer receives it: core's envelope with any `type` (packages add their own by declaration
 * merging, and a newer SDK may emit more) and a `data` object it must not trust. Files are written by agents whose
 * content came from models and tools, so every field is read defensively (see the accessors below): a malformed
 * or hostile trace renders what it can and never breaks the page.
 */
export type TraceEvent = ContextTraceEnvelope & { type: string; data: unknown };

/** The payload of a known event type, or undefined when the event is of another type. Fields may still be malformed. */
export function dataOf<T extends ContextTraceEventType>(
  event: TraceEvent | undefined,
  type: T,
): Partial<ContextTraceEventDataMap[T]> | undefined {
  if (!event || event.type !== type || !isRecord(event.data)) return undefined;
  return event.data as Partial<ContextTraceEventDataMap[T]>;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Milliseconds since the epoch of an ISO timestamp; NaN when absent or unparsable. */
export function timeOf(value: unknown): number {
  return typeof value === "string" ? Date.parse(value) : Number.NaN;
}

/** JSON text of any value, never throwing (cycles cannot come from JSON, but a host may hand us anything). */
export function jsonText(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The readable text of message content: a string, or content blocks (text, thinking, tool_use, tool_result,
 * images, documents) each reduced to what a person reads; unknown blocks as JSON.
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : jsonText(content);
  return content.map(blockText).join("\n");
}

function blockText(block: unknown): string {
  if (!isRecord(block)) return jsonText(block);
  switch (block.type) {
    case "text":
      return str(block.text) ?? "";
    case "thinking":
      return str(block.thinking) ?? "";
    case "redacted_thinking":
      return "[redacted thinking]";
    case "tool_use":
      return `${str(block.name) ?? "tool"}(${jsonText(block.input)})`;
    case "tool_result":
      return contentText(block.content);
    case "image":
      return "[image]";
    case "document":
      return `[document${typeof block.title === "string" ? `: ${block.title}` : ""}]`;
    default:
      return jsonText(block);
  }
}
