import { repairDanglingToolUses } from "./history-repair.js";
import { type HistoryStore, persist } from "./history-store.js";
import type { ModelMessage } from "./messages.js";

/**
 * An agent's history and, when configured, its mirror in a HistoryStore: loaded lazily once per Agent
 * lifetime, appended to as each message lands, replaced on every rewrite. A swallowed store failure leaves the
 * conversation running in memory; with failOnError it propagates.
 */
export class Conversation {
  readonly messages: ModelMessage[] = [];
  /** Settled once the store's history is in (or was superseded by a replace()). */
  #loading: Promise<void> | undefined;
  /** Set by replace(): whatever a pending load returns must not overwrite what the host installed. */
  #superseded = false;

  constructor(private readonly store: HistoryStore | undefined) {
    if (!store) this.#loading = Promise.resolve();
  }

  /** Seeds the history from the store on first use (one load, shared by concurrent callers). */
  ensureLoaded(): Promise<void> {
    this.#loading ??= this.#load();
    return this.#loading;
  }

  async #load(): Promise<void> {
    const store = this.store!;
    let loaded: ModelMessage[] = [];
    await persist(store, async current => {
      loaded = await current.load();
    });
    if (this.#superseded) return;
    this.messages.push(...loaded);
    // A process can die between a model turn and its tool results: answer what it left open.
    for (const repair of repairDanglingToolUses(this.messages)) await this.append(repair);
  }

  async append(message: ModelMessage): Promise<void> {
    this.messages.push(message);
    if (this.store) await persist(this.store, store => store.append(message));
  }

  /** Releases the store's handles (Agent.close()); the store reopens on its next use. */
  async release(): Promise<void> {
    if (this.store) await persist(this.store, store => store.close?.() ?? Promise.resolve());
  }

  /** Rewrites the whole history (compaction, replaceHistory) and the store with it; suppresses a pending load. */
  async replace(messages: ModelMessage[]): Promise<void> {
    this.#superseded = true;
    this.#loading ??= Promise.resolve();
    this.messages.splice(0, this.messages.length, ...messages);
    if (this.store) await persist(this.store, store => store.replace([...messages]));
  }
}
