/**
 * Whether a connection can still carry calls. A connection this package opened is marked closed when the
 * host closes it or the server goes away, so later calls fail at once with the reason instead of waiting.
 */
export class ConnectionLink {
  #closedBecause: string | undefined;

  /** Why the connection cannot carry calls, or undefined while it can. */
  closedBecause(): string | undefined {
    return this.#closedBecause;
  }

  /** The first reason wins: a crash noticed during close() stays a close by the host, and vice versa. */
  markClosed(reason: string): void {
    this.#closedBecause ??= reason;
  }
}
