import { InvalidOptionError } from "./errors.js";
import type { ModelMessage, TextBlock, ToolResultBlock } from "./messages.js";
import type { ModelToolSpec } from "./model-client.js";
import { assertKnownOptions } from "./option-validation.js";
import type { ContextTraceEvent } from "./trace-events.js";

/** What onToolResult sees: every result on its way to the model, including failures and blocked calls. */
export interface ToolResultHookInput<TContext = unknown> {
  toolName: string;
  toolUseId: string;
  input: unknown;
  /** The tool_result about to be sent. Do not mutate it; return a replacement. */
  result: ToolResultBlock;
  /** The error a failed handler threw, when that is why the result is an error. */
  error?: unknown;
  context: TContext | undefined;
}

/**
 * What onModelRequest sees: one request about to be sent. Returning a change affects this request only. With
 * prompt caching on, `system` is a list of text blocks and some blocks carry `cache_control` breakpoints (on
 * copies: the stored history has none); a hook may move, change or drop them (`withoutCacheControl()`).
 */
export interface ModelRequestHookInput<TContext = unknown> {
  messages: readonly ModelMessage[];
  system: string | TextBlock[] | undefined;
  tools: readonly ModelToolSpec[];
  /** 1-based model turn within the query. */
  turn: number;
  model: string;
  context: TContext | undefined;
}

/** What onTraceEvent sees: one trace event about to reach the tracers. */
export interface TraceEventHookInput<TContext = unknown> {
  /** Do not mutate it; return a replacement (same type and envelope, redacted data). */
  event: ContextTraceEvent;
  context: TContext | undefined;
}

export type ModelRequestHookResult = {
  messages?: ModelMessage[];
  system?: string | TextBlock[];
  tools?: ModelToolSpec[];
};

/**
 * Hooks shape what things look like (permission and toolBatchPolicy decide whether they run). Each returns a
 * replacement or undefined for "unchanged". A hook that throws propagates out of query(): a redaction hook
 * that failed quietly would leak what it exists to protect.
 */
export interface AgentHooks<TContext = unknown> {
  // `void` lets a hook that returns nothing on some paths (a plain `return;`) typecheck as "unchanged".
  onToolResult?(
    input: ToolResultHookInput<TContext>,
    // biome-ignore lint/suspicious/noConfusingVoidType: see above
  ): ToolResultBlock | undefined | void | Promise<ToolResultBlock | undefined>;
  onModelRequest?(
    input: ModelRequestHookInput<TContext>,
    // biome-ignore lint/suspicious/noConfusingVoidType: see above
  ): ModelRequestHookResult | undefined | void | Promise<ModelRequestHookResult | undefined>;
  /**
   * Sees every trace event before any tracer does — the prompt, each request, each assistant message, each tool
   * call's input and result — so one redaction covers them all. Applies to the events of delegated agents sent to
   * this query's tracer too. Runs only when a tracer is attached.
   */
  onTraceEvent?(
    input: TraceEventHookInput<TContext>,
    // biome-ignore lint/suspicious/noConfusingVoidType: see above
  ): ContextTraceEvent | undefined | void | Promise<ContextTraceEvent | undefined>;
}

const HOOK_KEYS: ReadonlySet<string> = new Set(["onToolResult", "onModelRequest", "onTraceEvent"]);

export function validateHooks(hooks: AgentHooks<any> | undefined): void {
  if (hooks === undefined) return;
  assertKnownOptions(hooks, HOOK_KEYS, "AgentOptions.hooks");
  for (const key of HOOK_KEYS) {
    const hook = (hooks as Record<string, unknown>)[key];
    if (hook !== undefined && typeof hook !== "function") {
      throw new InvalidOptionError(`AgentOptions.hooks.${key} must be a function.`);
    }
  }
}

/** Chains hooks in order; each receives the previous one's output. */
export function createCompositeAgentHooks<TContext = unknown>(
  hooks: AgentHooks<TContext>[],
): AgentHooks<TContext> {
  for (const entry of hooks) validateHooks(entry);
  return {
    async onToolResult(input) {
      let result = input.result;
      for (const entry of hooks) {
        const replaced = await entry.onToolResult?.({ ...input, result });
        if (replaced) result = replaced;
      }
      return result === input.result ? undefined : result;
    },
    async onModelRequest(input) {
      let current = { messages: input.messages, system: input.system, tools: input.tools };
      let changed = false;
      for (const entry of hooks) {
        const replaced = await entry.onModelRequest?.({ ...input, ...current });
        if (replaced) {
          current = { ...current, ...replaced };
          changed = true;
        }
      }
      return changed ? (current as ModelRequestHookResult) : undefined;
    },
    async onTraceEvent(input) {
      let event = input.event;
      for (const entry of hooks) event = (await entry.onTraceEvent?.({ ...input, event })) ?? event;
      return event === input.event ? undefined : event;
    },
  };
}

/** Applies onToolResult; the replacement always answers the original tool_use id. */
export async function applyToolResultHook(
  hooks: AgentHooks<any> | undefined,
  input: ToolResultHookInput<any>,
): Promise<ToolResultBlock> {
  const replaced = await hooks?.onToolResult?.(input);
  if (!replaced) return input.result;
  return { ...replaced, type: "tool_result", tool_use_id: input.toolUseId };
}
