import { repairHistory } from "./history-invariant.js";
import { type HistoryStore, persist } from "./history-store.js";
import type { ModelMessage } from "./messages.js";
import type { HistoryLoadWarning } from "./sdk-messages.js";

/**
 * An agent's history and, when configured, its mirror in a HistoryStore: loaded lazily once per Agent
 * lifetime, appended to as each message lands, replaced on every rewrite. A swallowed store failure leaves the
 * conversation running in memory; with failOnError it propagates. A store that missed a write is never left
 * half-applied: the next write replaces its whole copy instead of appending after the gap.
 */
export class Conversation {
  readonly messages: ModelMessage[] = [];
  /** Settled once the store's history is in (or was superseded by a replace()). */
  #loading: Promise<void> | undefined;
  /** Set by replace(): whatever a pending load returns must not overwrite what the host installed. */
  #superseded = false;
  /** The store missed a write (a swallowed failure): its copy has a gap until a full replace succeeds. */
  #storeBehind = false;
  /** What the store skipped while loading, until the next query announces it (takeLoadWarnings()). */
  #loadWarnings: HistoryLoadWarning[] = [];

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
    const warnings: HistoryLoadWarning[] = [];
    await persist(store, async current => {
      loaded = await current.load({ warn: warning => warnings.push(warning) });
    });
    this.#loadWarnings.push(...warnings);
    if (this.#superseded) return;
    // A process can die between a model turn and its tool results, and a file can be torn or edited: restore
    // the invariant wherever it broke, and write the repair back.
    const { messages, changed } = repairHistory(loaded);
    this.messages.push(...messages);
    if (!changed) return;
    const appendedOnly = loaded.every((message, index) => messages[index] === message);
    if (appendedOnly) {
      for (const repair of messages.slice(loaded.length)) await this.#write(store => store.append(repair));
    } else {
      await this.#write(store => store.replace([...this.messages]));
    }
  }

  /** The store's load warnings not yet announced; each is returned once. */
  takeLoadWarnings(): HistoryLoadWarning[] | undefined {
    if (this.#loadWarnings.length === 0) return undefined;
    return this.#loadWarnings.splice(0);
  }

  async append(message: ModelMessage): Promise<void> {
    this.messages.push(message);
    await this.#write(store => store.append(message));
  }

  /** One store write under its failure policy; after a missed write, the next one replaces the whole copy. */
  async #write(operation: (store: HistoryStore) => Promise<void>): Promise<void> {
    if (!this.store) return;
    const resync = this.#storeBehind;
    const ok = await persist(this.store, store =>
      resync ? store.replace([...this.messages]) : operation(store),
    );
    this.#storeBehind = !ok;
  }

  /**
   * Replaces the last message (a paused batch's assistant message gains or loses its pause record) in memory and,
   * since stores only append or replace, by rewriting the store's copy.
   */
  async updateLast(message: ModelMessage): Promise<void> {
    this.messages[this.messages.length - 1] = message;
    await this.#write(store => store.replace([...this.messages]));
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
    this.#storeBehind = false;
    await this.#write(store => store.replace([...messages]));
  }
}
