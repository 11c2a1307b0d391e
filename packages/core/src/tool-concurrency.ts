import { InvalidOptionError } from "./errors.js";
import { assertKnownOptions } from "./option-validation.js";
import type { ToolDefinition } from "./tool.js";

/** Which calls of one batch may overlap. The model asks for concurrency; the SDK decides. */
export interface ToolConcurrency {
  /** "safe" (default): only calls whose tool says isConcurrencySafe(input); "all": every call; "sequential": none. */
  mode?: "safe" | "all" | "sequential";
  /** Upper bound on calls running at once (default 10). */
  maxConcurrency?: number;
}

export const DEFAULT_MAX_CONCURRENCY = 10;

export interface ResolvedConcurrency {
  mode: "safe" | "all" | "sequential";
  maxConcurrency: number;
}

export function resolveToolConcurrency(options: ToolConcurrency | undefined): ResolvedConcurrency {
  assertKnownOptions(options, new Set(["mode", "maxConcurrency"]), "AgentOptions.toolConcurrency");
  const mode = options?.mode ?? "safe";
  if (mode !== "safe" && mode !== "all" && mode !== "sequential") {
    throw new InvalidOptionError(
      `AgentOptions.toolConcurrency.mode must be "safe", "all" or "sequential"; got ${JSON.stringify(mode)}.`,
    );
  }
  const maxConcurrency = options?.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new InvalidOptionError(
      `AgentOptions.toolConcurrency.maxConcurrency must be a positive integer; got ${JSON.stringify(maxConcurrency)}.`,
    );
  }
  return { mode, maxConcurrency };
}

/** Whether any call could ever overlap with these tools, which decides the system-prompt hint. */
export function concurrencyAvailable(
  concurrency: ResolvedConcurrency,
  tools: Iterable<ToolDefinition>,
): boolean {
  if (concurrency.mode === "sequential" || concurrency.maxConcurrency < 2) return false;
  if (concurrency.mode === "all") return true;
  for (const definition of tools) if (definition.isConcurrencySafe) return true;
  return false;
}

export const CONCURRENCY_HINT =
  "You can call several tools in one response. Batch independent tool calls together in a single response; when a " +
  "call needs the result of an earlier call, make it in a separate, later response.";

/**
 * Splits a batch into consecutive groups that may run together: in "safe" mode a run of concurrency-safe calls
 * forms one group and every other call is a group of its own, so unsafe calls never overlap anything.
 */
export function groupForExecution<T>(
  items: readonly T[],
  mode: ResolvedConcurrency["mode"],
  isSafe: (item: T) => boolean,
): T[][] {
  if (mode === "sequential") return items.map(item => [item]);
  if (mode === "all") return items.length ? [[...items]] : [];
  const groups: T[][] = [];
  let current: T[] = [];
  for (const item of items) {
    if (isSafe(item)) {
      current.push(item);
      continue;
    }
    if (current.length) groups.push(current);
    current = [];
    groups.push([item]);
  }
  if (current.length) groups.push(current);
  return groups;
}
