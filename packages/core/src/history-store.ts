import { InvalidOptionError } from "./errors.js";
import { bindFailurePolicy, failurePolicyOf } from "./failure-policy.js";
import type { ModelMessage } from "./messages.js";
import { assertKnownOptions } from "./option-validation.js";
import type { HistoryLoadWarning } from "./sdk-messages.js";
import type { FailurePolicyOptions } from "./tracer.js";

/**
 * The HistoryStore port: where an Agent's conversation is persisted. load() seeds a new Agent (lazily, before
 * its first query), append() follows every message added, replace() follows every rewrite (compaction,
 * replaceHistory). Methods only; create one with defineHistoryStore() or createJsonlHistoryStore().
 */
export interface HistoryStore {
  load(context?: HistoryLoadContext): Promise<ModelMessage[]>;
  append(message: ModelMessage): Promise<void>;
  replace(messages: ModelMessage[]): Promise<void>;
  /** Releases handles (files, connections) when the Agent closes; the store stays usable and reopens on demand. */
  close?(): Promise<void>;
}

/**
 * Given to load(): a store that skips damaged data reports each skip with warn(), so the host sees it (the next
 * query yields it as a `system` `history_warning` message) instead of losing a message silently.
 */
export interface HistoryLoadContext {
  warn(warning: HistoryLoadWarning): void;
}

export interface HistoryStoreMethods {
  /** `context` is given when an Agent loads (absent when you call load() yourself). */
  load(context?: HistoryLoadContext): ModelMessage[] | Promise<ModelMessage[]>;
  append(message: ModelMessage): void | Promise<void>;
  replace(messages: ModelMessage[]): void | Promise<void>;
  /** Optional: called by Agent.close() to release handles. */
  close?(): void | Promise<void>;
}

/**
 * Creates a HistoryStore from three methods (each sync or async), with `failOnError` bound now: by default a
 * failing store is swallowed and the conversation continues in memory; with failOnError its errors propagate
 * out of query(). `failOnError` may be given in the second argument or beside the methods.
 */
export function defineHistoryStore(
  methods: HistoryStoreMethods & FailurePolicyOptions,
  options: FailurePolicyOptions = {},
): HistoryStore {
  assertKnownOptions(
    methods,
    new Set(["load", "append", "replace", "close", "failOnError"]),
    "defineHistoryStore()",
  );
  assertKnownOptions(options, new Set(["failOnError"]), "defineHistoryStore() options");
  for (const key of ["load", "append", "replace"] as const) {
    if (typeof methods?.[key] !== "function") {
      throw new InvalidOptionError(
        `defineHistoryStore(): "${key}" must be a function. A store needs load(), append(message) and replace(messages).`,
      );
    }
  }
  if (methods.close !== undefined && typeof methods.close !== "function") {
    throw new InvalidOptionError('defineHistoryStore(): "close" must be a function when given.');
  }
  const store: HistoryStore = {
    load: async context => {
      const messages = await methods.load(context);
      if (!Array.isArray(messages))
        throw new TypeError("HistoryStore.load() must return an array of messages.");
      return messages;
    },
    append: async message => {
      await methods.append(message);
    },
    replace: async messages => {
      await methods.replace(messages);
    },
    close: async () => {
      await methods.close?.();
    },
  };
  return bindFailurePolicy(store, (options.failOnError ?? methods.failOnError) === true);
}

export function assertHistoryStore(store: HistoryStore | undefined): void {
  if (store === undefined) return;
  if (!store || typeof store.load !== "function" || failurePolicyOf(store) === undefined) {
    throw new InvalidOptionError(
      "AgentOptions.historyStore: create the store with defineHistoryStore({ load, append, replace }) or createJsonlHistoryStore({ path }).",
    );
  }
}

/** Runs a store operation under its failure policy; returns false when it failed and was swallowed. */
export async function persist(
  store: HistoryStore,
  operation: (store: HistoryStore) => Promise<unknown>,
): Promise<boolean> {
  try {
    await operation(store);
    return true;
  } catch (error) {
    if (failurePolicyOf(store) === true) throw error;
    return false;
  }
}
