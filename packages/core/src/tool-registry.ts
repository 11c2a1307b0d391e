import { assertUniqueToolNames } from "./agent-options.js";
import { InvalidOptionError } from "./errors.js";
import type { ModelToolSpec } from "./model-client.js";
import { assertNoReservedToolName, createSubmitOutputTool, type OutputSchema } from "./structured-output.js";
import type { ToolDefinition } from "./tool.js";
import { CONCURRENCY_HINT, concurrencyAvailable, type ResolvedConcurrency } from "./tool-concurrency.js";
import { type ToolSource, toolSourceOf } from "./tool-source.js";

/** What the registry last took from a ToolSource. */
interface SourceState {
  /** The source version the registry's tools reflect (or last rejected). */
  version: number;
  /** Names of the source's tools the host left out when it passed the source's tools: they stay out. */
  excluded: Set<string>;
}

/**
 * The tools of one agent session and what the model is told about them. Tools can be added to a live
 * agent; the change takes effect at the next model request. Tools that belong to a ToolSource are re-read
 * from it before each model request (`refresh()`), so a source whose tool list changed is seen at the next turn.
 */
export class ToolRegistry {
  readonly byName = new Map<string, ToolDefinition>();
  specs: ModelToolSpec[] = [];
  /** The system prompt: the host's prompt, the workspace section, and the batching hint when it applies. */
  system: string | undefined;
  readonly #sources = new Map<ToolSource, SourceState>();
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
    this.#commit(next);
    this.#trackSources(tools);
  }

  /**
   * Brings the tools of every ToolSource whose version moved up to date: the source's old tools are replaced
   * by its current ones (in place), except those the host left out. Validated like `add()`; on a conflict the
   * registry keeps its previous tools, remembers that version as rejected, and throws an InvalidOptionError.
   */
  /** Whether any ToolSource is attached (only then can refresh() change anything). */
  get hasSources(): boolean {
    return this.#sources.size > 0;
  }

  async refresh(): Promise<void> {
    if (this.#sources.size === 0) return;
    await Promise.all([...this.#sources.keys()].map(source => source.settled?.().catch(() => {})));
    const changed = new Map<ToolSource, { version: number; tools: ToolDefinition[] }>();
    for (const [source, state] of this.#sources) {
      const version = source.version();
      if (version === state.version) continue;
      const tools = source.tools().filter(definition => !state.excluded.has(definition?.name));
      changed.set(source, { version, tools });
    }
    if (changed.size === 0) return;
    const next: ToolDefinition[] = [];
    const placed = new Set<ToolSource>();
    for (const definition of this.byName.values()) {
      const source = toolSourceOf(definition);
      const update = source && changed.get(source);
      if (!update) next.push(definition);
      else if (!placed.has(source)) {
        placed.add(source);
        next.push(...update.tools);
      }
    }
    for (const [source, update] of changed) if (!placed.has(source)) next.push(...update.tools);
    for (const [source, update] of changed) this.#sources.get(source)!.version = update.version;
    const ids = [...changed.keys()].map(source => source.id).join(", ");
    try {
      if (this.outputSchema) assertNoReservedToolName(next, `The tools of ${ids}`);
      assertUniqueToolNames(next);
    } catch (error) {
      throw new InvalidOptionError(
        `The tool list of ${ids} changed, but the new list does not fit this agent: ${(error as Error).message} ` +
          "The agent keeps its previous tools. Give the source's tools another name prefix, or rename the " +
          "conflicting tool.",
      );
    }
    for (const [source, update] of changed) {
      for (const definition of update.tools)
        this.#origins.set(definition.name, `the tool source ${source.id}`);
    }
    this.#commit(next);
  }

  #commit(next: ToolDefinition[]): void {
    this.byName.clear();
    for (const definition of next) this.byName.set(definition.name, definition);
    for (const name of [...this.#origins.keys()]) if (!this.byName.has(name)) this.#origins.delete(name);
    this.specs = next.map(toModelToolSpec);
    const hint = concurrencyAvailable(this.concurrency, next) ? CONCURRENCY_HINT : undefined;
    const session = [this.sessionSection, hint].filter(Boolean).join("\n\n") || undefined;
    this.systemParts = { shared: this.systemPrompt || undefined, session };
    this.system = [this.systemPrompt, session].filter(Boolean).join("\n\n") || undefined;
  }

  /** Remembers the sources of newly added tools, and which of their tools the host chose not to pass. */
  #trackSources(added: readonly ToolDefinition[]): void {
    const passed = new Map<ToolSource, ToolDefinition[]>();
    for (const definition of added) {
      const source = toolSourceOf(definition);
      if (source) passed.set(source, [...(passed.get(source) ?? []), definition]);
    }
    for (const [source, definitions] of passed) {
      const current = source.tools();
      const names = new Set(definitions.map(definition => definition.name));
      const known = this.#sources.get(source);
      if (known) {
        for (const name of names) known.excluded.delete(name);
        continue;
      }
      const excluded = new Set(current.map(definition => definition.name).filter(name => !names.has(name)));
      // Tools taken from an older snapshot of the source: re-read it at the next refresh.
      const stale = definitions.some(definition => !current.includes(definition));
      this.#sources.set(source, { version: stale ? Number.NaN : source.version(), excluded });
    }
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
