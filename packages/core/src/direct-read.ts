import type { RawStreamEvent } from "./model-client.js";

/**
 * An internal fast path between core's built-in Anthropic client and the agent loop, for the provider's stream
 * once it is open. A stream iterator that carries DIRECT_READ offers the provider's own event iterator: events
 * without a promise of ours per event (no error-mapping `then`, no cancellation race). The reader takes on what
 * those did: it maps a failure with `mapError`, and it relies on the request's signal to end a pending read,
 * which the built-in client honours (the SDK aborts the HTTP response). Any other ModelClient, or this one before
 * its stream is open, is read the ordinary way.
 */
export const DIRECT_READ = Symbol.for("agent-lattice.directStreamRead");

export interface DirectRead<T = RawStreamEvent> {
  /** The provider's events, as they arrive. */
  readonly events: AsyncIterator<T>;
  /** What the ordinary iterator would have thrown for `error` (the SDK's errors become the SDK's typed errors). */
  mapError(error: unknown): Promise<unknown>;
}

export interface DirectReadable<T = RawStreamEvent> {
  /** The direct read once the stream is open; undefined before. */
  [DIRECT_READ](): DirectRead<T> | undefined;
}

/** The direct read `iterator` offers, if any, and if its stream is open. */
export function directReadOf<T = RawStreamEvent>(iterator: object): DirectRead<T> | undefined {
  return (iterator as Partial<DirectReadable<T>>)[DIRECT_READ]?.();
}
