import { assertUniqueToolNames } from "./agent-options.js";
import type { ModelToolSpec } from "./model-client.js";
import { assertNoReservedToolName, createSubmitOutputTool, type OutputSchema } from "./structured-output.js";
import type { ToolDefinition } from "./tool.js";
import { CONCURRENCY_HINT, concurrencyAvailable, type ResolvedConcurrency } from "./tool-concurrency.js";

/**
 * The tools of one agent session and what the model is told about them. Tools can be added to a live
 * agent; the change takes effect at the next model request.
 */
export class ToolRegistry {
  readonly byName = new Map<string, ToolDefinition>();
  specs: ModelToolSpec[] = [];
  /** The system prompt: the host's prompt, the workspace section, and the batching hint when it applies. */
  system: string | undefined;
  /**
   * The same text in two parts, for prompt caching: what every session built from the same options shares (the
   * host's prompt) and what is this session's own (the workspace section and the batching hint).
   */
  systemParts: { shared: string | undefined; session: string | undefined } = {
    shared: undefined,
    session: undefined,
  };

  constructor(
    private readonly systemPrompt: string | undefined,
    private readonly sessionSection: string | undefined,
    private readonly concurrency: ResolvedConcurrency,
    private readonly outputSchema: OutputSchema | undefined,
  ) {
    this.add([], "AgentOptions.tools");
  }

  /** Validates and adds tools; throws (adding nothing) on a duplicate or reserved name. */
  add(tools: readonly ToolDefinition[], where: string): void {
    if (this.outputSchema) assertNoReservedToolName(tools, where);
    const next = [...this.byName.values(), ...tools];
    if (this.outputSchema && !this.byName.size) next.push(createSubmitOutputTool(this.outputSchema));
    assertUniqueToolNames(next);
    for (const definition of next) this.byName.set(definition.name, definition);
    this.specs = next.map(toModelToolSpec);
    const hint = concurrencyAvailable(this.concurrency, next) ? CONCURRENCY_HINT : undefined;
    const session = [this.sessionSection, hint].filter(Boolean).join("\n\n") || undefined;
    this.systemParts = { shared: this.systemPrompt || undefined, session };
    this.system = [this.systemPrompt, session].filter(Boolean).join("\n\n") || undefined;
  }
}

function toModelToolSpec(definition: ToolDefinition): ModelToolSpec {
  return { name: definition.name, description: definition.description, input_schema: definition.inputSchema };
}
