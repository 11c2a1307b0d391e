import { assertUniqueToolNames } from "./agent-options.js";
import { InvalidOptionError } from "./errors.js";
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

  constructor(
    private readonly baseSystem: string | undefined,
    private readonly concurrency: ResolvedConcurrency,
    private readonly outputSchema: OutputSchema | undefined,
  ) {
    this.add([], "AgentOptions.tools");
  }

  /** Where each tool came from, for collision messages ("the built-in workspace tool", "AgentOptions.tools"). */
  readonly #origins = new Map<string, string>();

  /**
   * Validates and adds tools; throws (adding nothing) on a duplicate or reserved name. `origin` names where these
   * tools come from when a later tool collides with one of them.
   */
  add(tools: readonly ToolDefinition[], where: string, origin = where): void {
    if (this.outputSchema) assertNoReservedToolName(tools, where);
    assertUniqueToolNames(tools, where);
    for (const candidate of tools) {
      const taken = this.#origins.get(candidate.name);
      if (taken !== undefined) throw collision(where, candidate.name, taken);
    }
    const next = [...this.byName.values(), ...tools];
    if (this.outputSchema && !this.byName.size) next.push(createSubmitOutputTool(this.outputSchema));
    for (const definition of tools) this.#origins.set(definition.name, origin);
    for (const definition of next) this.byName.set(definition.name, definition);
    this.specs = next.map(toModelToolSpec);
    const hint = concurrencyAvailable(this.concurrency, next) ? CONCURRENCY_HINT : undefined;
    this.system = [this.baseSystem, hint].filter(Boolean).join("\n\n") || undefined;
  }
}

function collision(where: string, name: string, takenBy: string): InvalidOptionError {
  const builtIn = takenBy === BUILT_IN_ORIGIN;
  return new InvalidOptionError(
    builtIn
      ? `${where}: a tool is named "${name}", the name of a built-in workspace tool createAgent() installs (Read, Write, Edit, LS, Glob, Grep, Bash). Rename your tool, or leave the built-in tools out with workspace: false or createBareAgent().`
      : `${where}: two tools are named "${name}" (one of them from ${takenBy}). Tool names must be unique within an agent; rename one of them.`,
  );
}

/** The origin label of the tools a workspace provider installs. */
export const BUILT_IN_ORIGIN = "the built-in workspace tools";

function toModelToolSpec(definition: ToolDefinition): ModelToolSpec {
  return { name: definition.name, description: definition.description, input_schema: definition.inputSchema };
}
