import { DIRECT_READ, type DirectRead, type DirectReadable } from "./direct-read.js";

/**
 * A stream that is opened by the first next() and whose failures (opening or mid-stream) are mapped by
 * `mapError`. Events are forwarded, not re-yielded from an async generator: each generator layer costs a
 * resumption per event, which is measurable over a long tool loop. Once open, the stream also offers the agent
 * loop a direct read of the provider's events (direct-read.ts).
 */
export function openedOnFirstRead<T>(
  open: () => Promise<AsyncIterable<T>>,
  mapError: (error: unknown) => Promise<unknown>,
): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> & DirectReadable<T> {
      let source: Promise<AsyncIterator<T>> | undefined;
      let opened: AsyncIterator<T> | undefined;
      const fail = async (error: unknown): Promise<never> => {
        throw await mapError(error);
      };
      const openSource = () => {
        source ??= open().then(stream => {
          opened = stream[Symbol.asyncIterator]();
          return opened;
        });
        return source;
      };
      const direct: DirectRead<T> = {
        get events() {
          return opened!;
        },
        mapError,
      };
      return {
        [DIRECT_READ]: () => (opened ? direct : undefined),
        next: () =>
          opened
            ? opened.next().then(undefined, fail)
            : openSource()
                .then(events => events.next())
                .then(undefined, fail),
        // Closing before the first read opens nothing; closing an open stream releases its HTTP response.
        return: async value => {
          const events = opened ?? (source ? await source.catch(() => undefined) : undefined);
          await events?.return?.(value);
          return { done: true, value } as IteratorReturnResult<T>;
        },
      };
    },
  };
}
