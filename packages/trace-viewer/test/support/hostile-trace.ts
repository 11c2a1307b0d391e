import { runEvents } from "./events.js";

/**
 * JSONL text of a run whose one tool_result carries a value nested `depth` levels deep. Built as text: a value that
 * deep cannot be passed through JSON.stringify, which is the point.
 */
export function deeplyNestedTrace(depth: number): string {
  const run = runEvents("deep", "agent");
  run.start();
  const lines = run.events.map(event => JSON.stringify(event));
  const deep = `${"[".repeat(depth)}"the bottom"${"]".repeat(depth)}`;
  const result = JSON.stringify({
    ...run.emit("tool_result", {
      tool_use_id: "t1",
      name: "read",
      kind: "tool",
      content: "DEEP_PLACEHOLDER",
      is_error: false,
      turn: 1,
    }),
  }).replace('"DEEP_PLACEHOLDER"', deep);
  return `${[...lines, result].join("\n")}\n`;
}
