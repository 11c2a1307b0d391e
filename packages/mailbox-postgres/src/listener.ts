import { createHash } from "node:crypto";
import {
  createNotifiableWatch,
  type NotifiableMailboxWatch,
  type TeamMailboxWatch,
  type TeamMailboxWatchOptions,
} from "@agent-lattice/team";
import { faultOf, permanentError } from "./faults.js";
import type { PostgresNotification, PostgresPoolClientLike, PostgresPoolLike } from "./pool.js";
import { type Reconnector, retryDelayMs } from "./reconnect.js";

/**
 * The NOTIFY channel of one mailbox: `al_` and 24 hex digits of md5("<schema>/<mailbox id>"), the same name the
 * schema's trigger computes. One channel per mailbox, so a listener hears only the mailboxes it watches.
 */
export function channelOf(schema: string, mailboxId: string): string {
  return `al_${createHash("md5").update(`${schema}/${mailboxId}`).digest("hex").slice(0, 24)}`;
}

/**
 * LISTEN for the mailbox's watches, on one connection taken from the pool while any watch is open (returned to
 * the pool when the last one closes). Channels are reference-counted across watches.
 *
 * A dropped connection never fails a watch. When the connection dies (a terminated backend, a server restart), or
 * cannot be opened when a watch starts, every watch is woken (its waiter re-checks: a notification may have been
 * missed), and the listener reconnects in the background with backoff (at once, then 100 ms doubling to 5 s,
 * jittered; for as long as anything watches), listens again to every watched channel and wakes every watch once
 * more: the one re-check after reconnecting covers what changed while nobody listened. Meanwhile waits end by
 * their timeouts, which is how the runtime re-checks anyway. Only a permanent failure (login, permissions) at
 * watch() throws, as its typed PostgresMailboxError.
 */
export class MailboxListener {
  readonly #pool: PostgresPoolLike;
  readonly #schema: string;
  readonly #reconnector: Reconnector;
  readonly #watches = new Map<string, Set<NotifiableMailboxWatch>>();
  #client: PostgresPoolClientLike | undefined;
  /** Detaches the current client's listeners. */
  #detach: (() => void) | undefined;
  /** Serialises connecting, LISTEN and UNLISTEN so a channel is never unlistened after a newer listen. */
  #queue: Promise<unknown> = Promise.resolve();
  #reconnecting: Promise<void> | undefined;
  /** Why the connection was last lost (reported with the reconnect's first attempt). */
  #lastError: unknown;
  #closed = false;

  constructor(pool: PostgresPoolLike, schema: string, reconnector: Reconnector) {
    this.#pool = pool;
    this.#schema = schema;
    this.#reconnector = reconnector;
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
        if (this.#client) {
          for (const channel of fresh) await this.#client.query(`LISTEN ${channel}`);
          return;
        }
        // While reconnecting, the reconnect listens to every watched channel, these included, and then wakes them.
        if (!this.#reconnecting) await this.#connect();
      });
    } catch (error) {
      const fault = faultOf(error);
      if (fault === "transient") {
        this.#lost(error);
        return watch;
      }
      await watch.close();
      throw fault === "permanent" ? permanentError(error, this.#schema) : error;
    }
    return watch;
  }

  /** Returns the connection to the pool (pending waits resolve false) and stops reconnecting. */
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

  /** Takes a connection and listens on it to every watched channel; it becomes the listener's only once it does. */
  async #connect(): Promise<void> {
    const client = await this.#pool.connect();
    const onBroken = (error?: unknown) => {
      if (client === this.#client) this.#lost(error ?? new Error("Connection terminated unexpectedly"));
    };
    client.on("notification", this.#onNotification);
    client.on("error", onBroken);
    client.on("end", onBroken);
    const detach = () => {
      client.removeListener("notification", this.#onNotification);
      client.removeListener("error", onBroken);
      client.removeListener("end", onBroken);
    };
    try {
      for (const channel of this.#watches.keys()) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      detach();
      release(client, true);
      throw error;
    }
    this.#client = client;
    this.#detach = detach;
  }

  readonly #onNotification = (message: PostgresNotification) => {
    for (const watch of this.#watches.get(message.channel) ?? []) watch.notify();
  };

  /** The connection died or could not be opened: wake everyone to re-check, and reconnect in the background. */
  #lost(error: unknown): void {
    this.#drop(true);
    this.#wakeAll();
    this.#lastError = error;
    this.#startReconnect();
  }

  #startReconnect(): void {
    if (this.#reconnecting || this.#closed || !this.#watches.size || this.#client) return;
    this.#reconnecting = this.#reconnect(this.#lastError).finally(() => {
      this.#reconnecting = undefined;
      // The new connection may have died before this loop ended: start over.
      this.#startReconnect();
    });
  }

  async #reconnect(firstError: unknown): Promise<void> {
    let error = firstError;
    for (let attempt = 1; !this.#closed && this.#watches.size && !this.#client; attempt++) {
      const delayMs = retryDelayMs(attempt);
      this.#reconnector.report({ operation: "listen", attempt, delayMs, error });
      // Not holding the process open: a process whose only work is waiting may exit.
      if (!(await this.#reconnector.sleep(delayMs, false))) return;
      if (this.#closed || !this.#watches.size) return;
      try {
        await this.#serial(() => (this.#client ? Promise.resolve() : this.#connect()));
        // Changes committed while nobody listened: every waiter re-checks once, now that we hear again.
        this.#wakeAll();
        return;
      } catch (next) {
        // Permanent failures too are retried here (at the capped delay): nobody awaits this, and the mailbox's
        // own calls report them.
        error = next;
      }
    }
  }

  #wakeAll(): void {
    for (const set of this.#watches.values()) for (const watch of set) watch.notify();
  }

  #drop(broken: boolean): void {
    const client = this.#client;
    if (!client) return;
    this.#client = undefined;
    this.#detach?.();
    this.#detach = undefined;
    release(client, broken);
  }
}

function release(client: PostgresPoolClientLike, broken: boolean): void {
  try {
    client.release(broken ? true : undefined);
  } catch {
    // Already released (the pool ended).
  }
}
