import { InvalidOptionError } from "./errors.js";
import type { OutputFormatParam, ReasoningEffort, ThinkingParam } from "./model-client.js";

/**
 * How the model should reason. `enabled` budgets are capped at maxTokens - 1 (an Anthropic API constraint);
 * `disabled` is sent explicitly because some providers (DeepSeek) default thinking to on.
 */
export type ThinkingConfig =
  | { type: "adaptive" }
  | { type: "enabled"; budgetTokens: number }
  | { type: "disabled" };

/** "json", or a JSON Schema the final text must match (sent as the provider's structured-output parameter). */
export type OutputFormat = "json" | { type: "json_schema"; schema: Record<string, unknown> };

const REASONING_EFFORTS: ReadonlySet<string> = new Set(["low", "high", "max"]);

/** Provider parameters that can be set on the agent and overridden per query. */
export interface ProviderParams {
  thinkingConfig?: ThinkingConfig;
  reasoningEffort?: ReasoningEffort;
  outputFormat?: OutputFormat;
}

export function validateProviderParams(params: ProviderParams, label: string): void {
  const { thinkingConfig, reasoningEffort, outputFormat } = params;
  if (thinkingConfig !== undefined) {
    const valid =
      thinkingConfig !== null &&
      typeof thinkingConfig === "object" &&
      (thinkingConfig.type === "adaptive" ||
        thinkingConfig.type === "disabled" ||
        (thinkingConfig.type === "enabled" &&
          Number.isInteger(thinkingConfig.budgetTokens) &&
          thinkingConfig.budgetTokens > 0));
    if (!valid) {
      throw new InvalidOptionError(
        `${label}.thinkingConfig must be { type: "adaptive" }, { type: "enabled", budgetTokens: <positive integer> } or { type: "disabled" }; got ${JSON.stringify(thinkingConfig)}.`,
      );
    }
  }
  if (reasoningEffort !== undefined && !REASONING_EFFORTS.has(reasoningEffort)) {
    throw new InvalidOptionError(
      `${label}.reasoningEffort must be "low", "high" or "max"; got ${JSON.stringify(reasoningEffort)}.`,
    );
  }
  if (outputFormat !== undefined && outputFormat !== "json") {
    const valid =
      outputFormat !== null &&
      typeof outputFormat === "object" &&
      outputFormat.type === "json_schema" &&
      outputFormat.schema !== null &&
      typeof outputFormat.schema === "object";
    if (!valid) {
      throw new InvalidOptionError(
        `${label}.outputFormat must be "json" or { type: "json_schema", schema: { ... } }; got ${JSON.stringify(outputFormat)}.`,
      );
    }
  }
}

/** The wire `thinking` parameter, or undefined when thinking is not configured (nothing is sent). */
export function toThinkingParam(
  config: ThinkingConfig | undefined,
  maxTokens: number,
): ThinkingParam | undefined {
  if (!config) return undefined;
  if (config.type === "enabled") {
    return { type: "enabled", budget_tokens: Math.min(config.budgetTokens, maxTokens - 1) };
  }
  return { type: config.type };
}

/**
 * The wire structured-output format. A schema is sent as-is; plain "json" has no schema-less equivalent in
 * the Anthropic API, so it is sent as a JSON Schema that admits any JSON object.
 */
export function toOutputFormatParam(format: OutputFormat | undefined): OutputFormatParam | undefined {
  if (!format) return undefined;
  if (format === "json") return { type: "json_schema", schema: { type: "object" } };
  return { type: "json_schema", schema: format.schema };
}
