import { InvalidOptionError } from "./errors.js";
import type { CacheControl } from "./messages.js";
import { assertKnownOptions } from "./option-validation.js";

/**
 * Prompt caching: `true` (the default) lets core place `cache_control` breakpoints with the provider's default
 * lifetime (5 minutes on Anthropic), `{ ttl: "1h" }` asks for the one-hour lifetime (cache writes cost 2× instead
 * of 1.25× base input), `false` sends no breakpoints.
 */
export type PromptCaching = boolean | { ttl?: "5m" | "1h" };

/** The provider's limit of breakpoints per request (Anthropic rejects a fifth). */
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * How many blocks the provider checks backwards from a breakpoint for an earlier cache entry (Anthropic: 20,
 * the breakpoint's own block included). A turn that adds this many blocks or more gets an extra breakpoint
 * where the previous request's breakpoint was, so that request's cache entry is still found.
 */
export const CACHE_LOOKBACK_BLOCKS = 20;

const TTLS: ReadonlySet<string> = new Set(["5m", "1h"]);

export function validatePromptCaching(value: unknown, label: string): void {
  if (value === undefined || typeof value === "boolean") return;
  const invalid = () =>
    new InvalidOptionError(
      `${label}.promptCaching must be true, false or { ttl: "5m" | "1h" }; got ${JSON.stringify(value)}.`,
    );
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid();
  assertKnownOptions(value, new Set(["ttl"]), `${label}.promptCaching`);
  const { ttl } = value as { ttl?: unknown };
  if (ttl !== undefined && !(typeof ttl === "string" && TTLS.has(ttl))) throw invalid();
}

/** The marker core puts on each breakpoint, or undefined when caching is off. */
export function toCacheControl(option: PromptCaching | undefined): CacheControl | undefined {
  if (option === false) return undefined;
  if (option === undefined || option === true || option.ttl === undefined) return { type: "ephemeral" };
  return { type: "ephemeral", ttl: option.ttl };
}

/**
 * Per agent: whether the provider refused `cache_control`. Once it has, the agent sends no breakpoints (a
 * per-query `promptCaching: true` cannot turn them back on) and the trace gets one note saying so.
 */
export class PromptCacheState {
  /** The provider's refusal, when there was one. */
  rejection: unknown;
  rejected = false;
  /** The trace note about the refusal has been written. */
  noted = false;

  reject(error: unknown): void {
    this.rejected = true;
    this.rejection = error;
  }
}
