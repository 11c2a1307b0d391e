import { searchTextOf } from "./describe.js";
import { agentOf, type TraceModel, type TreeNode } from "./trace-model.js";

/**
 * Which rows the tree shows. Type filter values: "run", "turn", "tool", "delegation" (agent_tool calls),
 * "member" (team members' work items), "errors" (any row with an error), or "event:<type>" for one generic event
 * type.
 */
export interface RowFilter {
  /** Only rows of this agent's (or team's, or team member's) runs; see agentOf. */
  source?: string;
  type?: string;
  /** Case-insensitive substring of the row's content (see searchTextOf). */
  text?: string;
}

export function isFilterActive(filter: RowFilter): boolean {
  return !!(filter.source || filter.type || filter.text?.trim());
}

export function matchesFilter(node: TreeNode, filter: RowFilter): boolean {
  if (filter.source && agentOf(node) !== filter.source) return false;
  if (filter.type && !matchesType(node, filter.type)) return false;
  const text = filter.text?.trim().toLowerCase();
  if (text && !searchTextOf(node).includes(text)) return false;
  return true;
}

function matchesType(node: TreeNode, type: string): boolean {
  switch (type) {
    case "run":
    case "turn":
    case "tool":
    case "member":
      return node.kind === type;
    case "delegation":
      return node.kind === "tool" && node.toolKind === "agent_tool";
    case "errors":
      return node.error !== undefined;
    default:
      return type.startsWith("event:") && node.kind === "event" && node.type === type.slice("event:".length);
  }
}

export interface VisibleRows {
  rows: TreeNode[];
  /** Rows that match the filter (the others are shown dimmed, as the context of a match); undefined: no filter. */
  matched: Set<TreeNode> | undefined;
}

/**
 * The rows in tree order. Without a filter: every node whose ancestors are all expanded. With one: every match
 * and its ancestors, whatever is collapsed (a match hidden inside a collapsed row would look like no match).
 */
export function visibleRows(
  model: TraceModel,
  collapsed: ReadonlySet<string>,
  filter: RowFilter,
): VisibleRows {
  const rows: TreeNode[] = [];
  if (!isFilterActive(filter)) {
    const stack: TreeNode[] = [...model.roots].reverse();
    while (stack.length) {
      const node = stack.pop()!;
      rows.push(node);
      if (collapsed.has(node.id)) continue;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
    return { rows, matched: undefined };
  }
  const matched = new Set<TreeNode>();
  const shown = new Set<TreeNode>();
  for (const node of model.nodes.values()) {
    if (!matchesFilter(node, filter)) continue;
    matched.add(node);
    for (let at: TreeNode | undefined = node; at && !shown.has(at); at = at.parent) shown.add(at);
  }
  const stack: TreeNode[] = [...model.roots].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    if (!shown.has(node)) continue;
    rows.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return { rows, matched };
}
