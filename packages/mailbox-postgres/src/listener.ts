import { createHash } from "node:crypto";
import {
  createNotifiableWatch,
  type NotifiableMailboxWatch,
  type TeamMailboxWatch,
  type TeamMailboxWatchOptions,
} from "@agent-lattice/team";
import type { PostgresNotification, PostgresPoolClientLike, PostgresPoolLike } from "./pool.js";

/**
 * The NOTIFY channel of one mailbox: `al_` and 24 hex digits of md5("<schema>/<mailbox id>"), the same name the
 * schema's trigger computes. One channel per mailbox, so a listener hears only the mailboxes it watches.
 */
export function channelOf(schema: string, mailboxId: string): string {
  return `al_${createHash("md5").update(`${schema}/${mailboxId}`).digest("hex").slice(0, 24)}`;
}

/**
 * LISTEN for the mailbox's watches, on one connection taken from the pool while any watch is open (returned to
 * the pool when the last one closes). Channels are reference-counted across watches. If the connection dies, every
 * watch is woken (a notification may have been missed while it was down: waiters re-check), and the next watch
 * activity reconnects and listens again.
 */
export class MailboxListener {
  readonly #pool: PostgresPoolLike;
  readonly #schema: string;
  readonly #watches = new Map<string, Set<NotifiableMailboxWatch>>();
  #client: PostgresPoolClientLike | undefined;
  #connecting: Promise<PostgresPoolClientLike> | undefined;
  /** Serialises LISTEN/UNLISTEN so a channel is never unlistened after a newer listen. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(pool: PostgresPoolLike, schema: string) {
    this.#pool = pool;
    this.#schema = schema;
  }

  async watch(
    mailboxIds: readonly string[],
    options: TeamMailboxWatchOptions = {},
  ): Promise<TeamMailboxWatch> {
    const channels = [...new Set(mailboxIds.map(id => channelOf(this.#schema, id)))];
    const watch = createNotifiableWatch({
      ...options,
      onClose: () => this.#unwatch(watch, channels),
    });
    if (watch.closed) return watch;
    const fresh: string[] = [];
    for (const channel of channels) {
      let set = this.#watches.get(channel);
      if (!set) {
        set = new Set();
        this.#watches.set(channel, set);
        fresh.push(channel);
      }
      set.add(watch);
    }
    try {
      // Listening before watch() resolves: a change committed after this point is heard.
      await this.#serial(async () => {
        const client = await this.#connection();
        for (const channel of fresh) await client.query(`LISTEN ${channel}`);
      });
    } catch (error) {
      await watch.close();
      throw error;
    }
    return watch;
  }

  /** Returns the connection to the pool (pending waits resolve false). */
  async close(): Promise<void> {
    this.#closed = true;
    const watches = new Set([...this.#watches.values()].flatMap(set => [...set]));
    for (const watch of watches) await watch.close();
    await this.#queue.catch(() => {});
    this.#drop(false);
  }

  #unwatch(watch: NotifiableMailboxWatch, channels: string[]): Promise<void> {
    const stale: string[] = [];
    for (const channel of channels) {
      const set = this.#watches.get(channel);
      if (!set) continue;
      set.delete(watch);
      if (!set.size) {
        this.#watches.delete(channel);
        stale.push(channel);
      }
    }
    if (!stale.length) return Promise.resolve();
    return this.#serial(async () => {
      const client = this.#client;
      if (!client) return;
      if (!this.#watches.size) {
        // Nobody listens any more: UNLISTEN * and hand the connection back.
        await client.query("UNLISTEN *").catch(() => {});
        this.#drop(false);
        return;
      }
      for (const channel of stale) if (!this.#watches.has(channel)) await client.query(`UNLISTEN ${channel}`);
    }).catch(() => {});
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #connection(): Promise<PostgresPoolClientLike> {
    if (this.#client) return this.#client;
    this.#connecting ??= (async () => {
      const client = await this.#pool.connect();
      client.on("notification", this.#onNotification);
      client.on("error", this.#onBroken);
      client.on("end", this.#onBroken);
      this.#client = client;
      // After a reconnect, listen again to every channel still watched.
      for (const channel of this.#watches.keys()) await client.query(`LISTEN ${channel}`);
      return client;
    })().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  readonly #onNotification = (message: PostgresNotification) => {
    for (const watch of this.#watches.get(message.channel) ?? []) watch.notify();
  };

  readonly #onBroken = () => {
    this.#drop(true);
    // A notification may have been lost while the connection was down: wake everyone to re-check, and listen
    // again on a new connection.
    for (const set of this.#watches.values()) for (const watch of set) watch.notify();
    void this.#reconnect();
  };

  /** Listens again once the database is back, retrying with backoff (250 ms doubling to 5 s). */
  async #reconnect(): Promise<void> {
    let delay = 250;
    while (!this.#closed && this.#watches.size && !this.#client) {
      try {
        await this.#serial(() => this.#connection());
        // Changes committed while nobody listened: wake everyone once more now that we hear again.
        for (const set of this.#watches.values()) for (const watch of set) watch.notify();
        return;
      } catch {
        await new Promise(resolve => setTimeout(resolve, delay).unref?.());
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  #drop(broken: boolean): void {
    const client = this.#client;
    if (!client) return;
    this.#client = undefined;
    client.removeListener("notification", this.#onNotification);
    client.removeListener("error", this.#onBroken);
    client.removeListener("end", this.#onBroken);
    try {
      client.release(broken ? true : undefined);
    } catch {
      // Already released (the pool ended).
    }
  }
}
