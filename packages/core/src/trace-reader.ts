import type { ContextTraceEvent } from "./trace-events.js";

/**
 * Reads a JSONL trace file's text (as written by createJsonlContextTracer) into events, oldest format first:
 * malformed or torn lines are skipped, and events written before the format carried a version (`v` absent,
 * version 0) are upgraded to the current shape, so tools reading traces (the trace viewer, a host's scripts)
 * handle old and new files alike. Event types this version does not know (a newer SDK's, or a package's own such
 * as team events) are passed through unchanged.
 */
export function readContextTrace(text: string): ContextTraceEvent[] {
  const events: ContextTraceEvent[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue; // a torn final write, or a corrupted line: keep everything else
    }
    const event = upgradeContextTraceEvent(parsed);
    if (event) events.push(event);
  }
  return events;
}

/** One parsed JSON object → a current-format event; undefined when it is not a trace event at all. */
export function upgradeContextTraceEvent(value: unknown): ContextTraceEvent | undefined {
  if (!value || typeof value !== "object") return undefined;
  const raw = value as Record<string, unknown>;
  if (typeof raw.type !== "string" || typeof raw.run_id !== "string" || typeof raw.seq !== "number")
    return undefined;
  if (!raw.data || typeof raw.data !== "object") return undefined;
  if (typeof raw.v === "number" && raw.v >= 1) return raw as unknown as ContextTraceEvent;
  return upgradeFromV0(raw);
}

/** Version 0: no `v`; tool_result data was the block plus `name`; no timings on results and turns. */
function upgradeFromV0(raw: Record<string, unknown>): ContextTraceEvent {
  const time = typeof raw.time === "string" ? raw.time : new Date(0).toISOString();
  const data = { ...(raw.data as Record<string, unknown>) };
  switch (raw.type) {
    case "user_message":
      data.origin ??= "prompt";
      break;
    case "tool_use":
      data.turn ??= 0;
      break;
    case "assistant_message":
      data.started_at ??= time;
      data.duration_ms ??= 0;
      data.usage ??= {};
      break;
    case "tool_result":
      delete data.type;
      data.kind ??= "tool";
      data.is_error = data.is_error === true;
      data.turn ??= 0;
      data.started_at ??= time;
      data.ended_at ??= time;
      data.duration_ms ??= 0;
      break;
  }
  // `v` stays 0: the shape is current, the record says which format the file was written in.
  return { ...raw, v: 0, data } as unknown as ContextTraceEvent;
}
