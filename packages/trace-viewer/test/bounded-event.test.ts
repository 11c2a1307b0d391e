// Issue 25 (6): one trace event nested 5,000 levels deep killed `serve` and made `view` exit 1. Events are bounded
// as they are read: over-deep, over-long and over-large values become markers, and the rest renders.
import { readContextTrace } from "@agent-lattice/core";
import { describe, expect, it } from "vitest";
import { renderTraceHtml } from "../src/index.js";
import { boundTraceEvent, EVENT_BOUNDS, TRUNCATED_MARK } from "../src/model/bounded-event.js";
import type { TraceEvent } from "../src/model/trace-event.js";
import { runEvents } from "./support/events.js";
import { deeplyNestedTrace } from "./support/hostile-trace.js";

/** How deep `value` nests, and the string found at the bottom (iterative: the input may be very deep). */
function bottom(value: unknown): { depth: number; leaf: unknown } {
  let depth = 0;
  while (Array.isArray(value)) {
    value = value[0];
    depth++;
  }
  return { depth, leaf: value };
}

describe("event bounds", () => {
  it("a value nested 5,000 levels deep is cut at the bound with a marker; the page renders", () => {
    const events = readContextTrace(deeplyNestedTrace(5_000)) as TraceEvent[];
    const deep = events.at(-1)!;
    expect(() => JSON.stringify(deep)).toThrow(RangeError); // what used to kill the viewer
    const bounded = boundTraceEvent(deep);
    const content = (bounded.data as { content: unknown }).content;
    const { depth, leaf } = bottom(content);
    expect(depth).toBe(EVENT_BOUNDS.maxDepth - 1); // data is level 1, content level 2
    expect(leaf).toBe(`${TRUNCATED_MARK} nested deeper than ${EVENT_BOUNDS.maxDepth} levels]`);
    const html = renderTraceHtml(events);
    expect(html).toContain(TRUNCATED_MARK);
  });

  it("a value just within the bound is kept whole, and an event within all bounds is returned as it is", () => {
    const events = readContextTrace(deeplyNestedTrace(EVENT_BOUNDS.maxDepth - 2)) as TraceEvent[];
    const event = events.at(-1)!;
    expect(boundTraceEvent(event)).toBe(event);
    expect(bottom((event.data as { content: unknown }).content).leaf).toBe("the bottom");
  });

  it("an over-long string is cut with its length; an event with too many values is cut where the budget ends", () => {
    const run = runEvents("r", "agent");
    const long = run.emit("user_message", {
      content: "x".repeat(EVENT_BOUNDS.maxStringChars + 5),
      origin: "prompt",
    });
    const text = (boundTraceEvent(long).data as { content: string }).content;
    expect(text.startsWith("x".repeat(1000))).toBe(true);
    expect(text.endsWith(`${TRUNCATED_MARK} ${EVENT_BOUNDS.maxStringChars + 5} characters in all]`)).toBe(
      true,
    );

    const wide = run.emit("tool_use", {
      id: "t",
      name: "n",
      turn: 1,
      input: { list: new Array(EVENT_BOUNDS.maxValues).fill(1) },
    });
    const list = (boundTraceEvent(wide).data as { input: { list: unknown[] } }).input.list;
    expect(list).toHaveLength(EVENT_BOUNDS.maxValues);
    expect(list.at(-1)).toBe(`${TRUNCATED_MARK} the event holds more than ${EVENT_BOUNDS.maxValues} values]`);
    expect(list[0]).toBe(1);
  });
});
