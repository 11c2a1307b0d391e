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
  #loaded: boolean;

  constructor(private readonly store: HistoryStore | undefined) {
    this.#loaded = store === undefined;
  }

  /** Seeds the history from the store on first use, answering tool calls a crashed process left open. */
  async ensureLoaded(): Promise<void> {
    if (this.#loaded) return;
    const store = this.store!;
    let loaded: ModelMessage[] = [];
    await persist(store, async current => {
      loaded = await current.load();
    });
    this.#loaded = true;
    this.messages.push(...loaded);
    for (const repair of repairDanglingToolUses(this.messages)) await this.append(repair);
  }

  async append(message: ModelMessage): Promise<void> {
    this.messages.push(message);
    if (this.store) await persist(this.store, store => store.append(message));
  }

  /** Rewrites the whole history (compaction, replaceHistory) and the store with it; suppresses a pending load. */
  async replace(messages: ModelMessage[]): Promise<void> {
    this.#loaded = true;
    this.messages.splice(0, this.messages.length, ...messages);
    if (this.store) await persist(this.store, store => store.replace([...messages]));
  }
}
