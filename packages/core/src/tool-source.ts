import type { ToolDefinition } from "./tool.js";

/**
 * A live set of tools whose membership can change while an agent runs (an MCP server's tools after
 * `notifications/tools/list_changed`). A tool that belongs to a source carries it as `source`; an agent that
 * was given such a tool (in `AgentOptions.tools` or `addTools()`) re-reads the source before each model request
 * whose `version()` moved, so the model always sees the source's current tools, with the same validation as
 * `addTools()`. Tools without a source never change.
 */
export interface ToolSource {
  /** Names the source in error messages, e.g. `MCP server "docs"`. */
  readonly id: string;
  /** Changes (e.g. increments) whenever `tools()` would return a different list. */
  version(): number;
  /** The source's current tools; each carries `source: this`. */
  tools(): readonly ToolDefinition[];
  /**
   * Optional: resolves once a change the source already knows about (a list request in flight) is reflected
   * in `tools()`. Awaited before each model request; must not reject and should bound its own wait.
   */
  settled?(): Promise<void>;
}

/** A ToolDefinition that belongs to a ToolSource. */
export type SourcedToolDefinition = ToolDefinition & { readonly source: ToolSource };

/** The source a tool belongs to, recognised by shape so that two installed copies of core interoperate. */
export function toolSourceOf(definition: ToolDefinition): ToolSource | undefined {
  const source = (definition as { source?: unknown }).source;
  if (source === null || typeof source !== "object") return undefined;
  const candidate = source as Partial<ToolSource>;
  return typeof candidate.id === "string" &&
    typeof candidate.version === "function" &&
    typeof candidate.tools === "function"
    ? (source as ToolSource)
    : undefined;
}
