import type { ModelMessage, ToolResultBlock, UserContentBlock } from "./messages.js";

/**
 * A process can die between a model turn and its tool results. Before resuming such a history, answer every
 * tool_use that has no tool_result, so the provider accepts the conversation. Returns the messages to append
 * (empty when the history is already well-formed).
 */
export function repairDanglingToolUses(history: readonly ModelMessage[]): ModelMessage[] {
  const last = history.at(-1);
  if (last?.role !== "assistant") return [];
  const uses = last.content.filter(block => block.type === "tool_use");
  if (uses.length === 0) return [];
  const results: UserContentBlock[] = uses.map(
    (use): ToolResultBlock => ({
      type: "tool_result",
      tool_use_id: (use as { id: string }).id,
      content:
        "This tool call did not complete: the session stopped before its result was recorded. Check whether it " +
        "took effect before repeating it.",
      is_error: true,
    }),
  );
  return [{ role: "user", content: results }];
}
