import type { TraceEvent } from "./trace-event.js";

/**
 * Bounds on one trace event, applied as events are read. A trace line is written by an agent whose content came
 * from models and tools; one value nested thousands of levels deep makes every recursive walk over it afterwards
 * (JSON.stringify of the page data, the page's own rendering) throw a stack overflow, and one huge string makes the
 * page too large to build. Past these bounds a value is replaced by a marker string the page shows, so the rest of
 * the event — and of the trace — still renders.
 */
export const EVENT_BOUNDS = {
  /** Object/array levels below the event itself (tool inputs are limited to 64 by core; messages add a few). */
  maxDepth: 100,
  /** Characters of one string (1 MB of text: a large file read by a tool still shows, a runaway blob does not). */
  maxStringChars: 1_000_000,
  /** Values (objects, arrays, primitives) in one event. */
  maxValues: 250_000,
} as const;

/** The marker that replaces a value past a bound; it starts with this text. */
export const TRUNCATED_MARK = "[truncated by the trace viewer:";

/** `event` within EVENT_BOUNDS: the same object when it already is, else a copy with markers where it was not. */
export function boundTraceEvent(event: TraceEvent): TraceEvent {
  if (withinBounds(event)) return event;
  const budget = { values: EVENT_BOUNDS.maxValues };
  return bound(event, 0, budget) as TraceEvent;
}

/** Iterative, so it never overflows whatever the nesting; two flat stacks, no allocation per value. */
function withinBounds(event: unknown): boolean {
  const values: unknown[] = [event];
  const depths: number[] = [0];
  let count = 0;
  while (values.length) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (++count > EVENT_BOUNDS.maxValues) return false;
    if (typeof value === "string") {
      if (value.length > EVENT_BOUNDS.maxStringChars) return false;
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth > EVENT_BOUNDS.maxDepth) return false;
    if (Array.isArray(value)) {
      for (const child of value) {
        values.push(child);
        depths.push(depth + 1);
      }
    } else {
      for (const key in value) {
        values.push((value as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  return true;
}

/** The bounded copy; recursion stops at maxDepth, so its own depth is bounded too. */
function bound(value: unknown, depth: number, budget: { values: number }): unknown {
  if (--budget.values < 0)
    return `${TRUNCATED_MARK} the event holds more than ${EVENT_BOUNDS.maxValues} values]`;
  if (typeof value === "string") {
    return value.length > EVENT_BOUNDS.maxStringChars
      ? `${value.slice(0, EVENT_BOUNDS.maxStringChars)}… ${TRUNCATED_MARK} ${value.length} characters in all]`
      : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > EVENT_BOUNDS.maxDepth) {
    return `${TRUNCATED_MARK} nested deeper than ${EVENT_BOUNDS.maxDepth} levels]`;
  }
  if (Array.isArray(value)) return value.map(item => bound(item, depth + 1, budget));
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) copy[key] = bound(member, depth + 1, budget);
  return copy;
}
