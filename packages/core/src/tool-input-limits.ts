import type { AssistantModelMessage } from "./messages.js";

/**
 * Limits on tool input the model provides. One broken or malicious turn can nest an input thousands of levels
 * deep; every recursive walk over it afterwards (JSON encoding of the next request, structuredClone in
 * getHistory(), the history store) would then fail with a stack overflow for the rest of the session. Inputs past
 * these limits are rejected when the turn is assembled: the call is answered with an error the model can act on,
 * and the history keeps the call with an empty input. All walks here are iterative.
 */
export const MAX_INPUT_DEPTH = 64;
/** Objects, arrays and primitives in one input. */
export const MAX_INPUT_NODES = 100_000;

/** Marks a tool_use input the loop rejected; JSON drops symbol keys, so it is stored and sent as `{}`. */
export const REJECTED_INPUT = Symbol.for("agent-lattice.rejectedToolInput");

/** True when `value` nests objects/arrays deeper than `maxDepth` (iterative; stops at the first violation). */
export function exceedsNesting(value: unknown, maxDepth: number): boolean {
  return measure(value, maxDepth, Number.POSITIVE_INFINITY) !== undefined;
}

/** Why `value` is over a limit, or undefined when it is within them. */
function measure(value: unknown, maxDepth: number, maxNodes: number): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let nodes = 0;
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (++nodes > maxNodes) return `it has more than ${maxNodes} values`;
    if (current === null || typeof current !== "object") continue;
    if (depth >= maxDepth) return `it is nested deeper than ${maxDepth} levels`;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** `message` with every over-limit tool_use input replaced by a rejection marker (the same object when none is). */
export function rejectOversizedToolInputs(message: AssistantModelMessage): AssistantModelMessage {
  let content: AssistantModelMessage["content"] | undefined;
  for (const [index, block] of message.content.entries()) {
    if (block.type !== "tool_use" || rejectionOf(block.input) !== undefined) continue;
    const problem = measure(block.input, MAX_INPUT_DEPTH, MAX_INPUT_NODES);
    if (!problem) continue;
    content ??= [...message.content];
    content[index] = { ...block, input: { [REJECTED_INPUT]: problem } };
  }
  return content ? { ...message, content } : message;
}

export function rejectionOf(input: unknown): string | undefined {
  if (input !== null && typeof input === "object" && REJECTED_INPUT in input) {
    return (input as Record<symbol, string>)[REJECTED_INPUT];
  }
  return undefined;
}
