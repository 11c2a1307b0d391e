import type { Usage } from "@agent-lattice/core";
import type { TreeNode } from "./trace-model.js";
import { addInto, emptyUsage } from "./values.js";

/**
 * What a row stands for beyond its own events, computed bottom-up over the finished tree:
 *
 * - Tokens: a run's `totalUsage` is its own turns plus everything below it — delegated runs, and a team's members —
 *   so a team row and its lead's row show what the whole team spent. A work item counts what the team reported for
 *   it or what its runs in the loaded files spent, whichever is more (the report also covers attempts and runs whose
 *   events are in other files; the runs cover a member that died before reporting).
 * - Errors: one failure leaves marks on several rows (a 401 is an error event, the turn it failed, and the run's
 *   failed result; a member's failure also fails its work item and the lead's call). Every mark stays highlighted,
 *   but a failure is counted once, where it arose: an error row counts; a turn never does (its error is a row's);
 *   a run's failed result, a failed work item or a failed call count only when nothing below them (a row, a
 *   delegated run) already accounts for it.
 */
export function rollUp(preorder: readonly TreeNode[]): { errors: number } {
  const counted = new Map<TreeNode, number>();
  const tokens = new Map<TreeNode, Usage>();
  // Reverse preorder visits every child before its parent: iterative, whatever the depth.
  for (let index = preorder.length - 1; index >= 0; index--) {
    const node = preorder[index]!;
    let below = 0;
    const usage = emptyUsage();
    for (const child of node.children) {
      below += counted.get(child) ?? 0;
      addInto(usage, tokens.get(child)!);
    }
    if (node.kind === "turn" && node.usage) addInto(usage, node.usage);
    if (node.kind === "member" && node.usage) atLeast(usage, node.usage);
    if (node.kind === "run") node.totalUsage = usage;
    tokens.set(node, usage);
    counted.set(node, below + (countsOwnError(node, below) ? 1 : 0));
  }
  let errors = 0;
  for (const node of preorder) if (!node.parent) errors += counted.get(node) ?? 0;
  return { errors };
}

function atLeast(usage: Usage, reported: Usage): void {
  usage.input_tokens = Math.max(usage.input_tokens, reported.input_tokens);
  usage.output_tokens = Math.max(usage.output_tokens, reported.output_tokens);
  usage.cache_creation_input_tokens = Math.max(
    usage.cache_creation_input_tokens,
    reported.cache_creation_input_tokens,
  );
  usage.cache_read_input_tokens = Math.max(usage.cache_read_input_tokens, reported.cache_read_input_tokens);
}

function countsOwnError(node: TreeNode, countedBelow: number): boolean {
  if (!node.error) return false;
  switch (node.kind) {
    case "event":
      return true;
    case "turn":
      return false;
    case "run":
      // Its failed result repeats the error its own error row recorded, when it has one.
      return !node.children.some(child => child.kind === "event" && child.error);
    case "tool":
    case "member":
      return countedBelow === 0;
  }
}
