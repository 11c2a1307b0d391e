import { type DirectRead, directReadOf } from "./direct-read.js";
import type { RawStreamEvent } from "./model-client.js";
import type { SDKMessage } from "./sdk-messages.js";
import { type LoopOutput, StreamRelay } from "./stream-relay.js";

type Step = IteratorResult<SDKMessage, void>;

/**
 * What agent.query() returns: an async generator of the query's messages. Messages come from the loop's
 * generator, except while a model response streams: then the loop is suspended at the StreamRelay it yielded and
 * each next() reads one provider event directly (see stream-relay.ts). When the stream ends or fails, next()
 * resumes the loop, which assembles the response (or meets the failure) where it left off.
 *
 * return() and throw() go to the loop as they would on a plain generator: a loop suspended at a relay is
 * suspended at a yield, so its finally blocks run (the stream is released) exactly as before. Arriving while a
 * step is pending (a tool running, a request in flight), they first stop the query early, then wait for that step,
 * which now settles within the tool grace period, and then end the loop.
 */
export class QueryIterator implements AsyncGenerator<SDKMessage, void, undefined> {
  #relay: StreamRelay | undefined;
  /**
   * The consumer's step in flight, if any. A next() asked for while one is pending waits its turn, as on a
   * generator. Cleared by whichever callback produces the step, so the common path costs no extra promise.
   */
  #pending: Promise<Step> | undefined;
  /** Reads the relayed stream's next event (made per stream by #startRelay). */
  #readEvent: (() => Promise<Step>) | undefined;
  /** Resolves the consumer's step while a relayed event is being read. */
  #resolveRead: ((step: Step | Promise<Step>) => void) | undefined;
  readonly #captureRead = (resolve: (step: Step | Promise<Step>) => void) => {
    this.#resolveRead = resolve;
  };
  readonly #fromLoopStep = (step: IteratorResult<LoopOutput, void>): Step | Promise<Step> => {
    if (step.value instanceof StreamRelay) return this.#startRelay(step.value);
    this.#pending = undefined;
    return step as Step;
  };
  readonly #fromLoopError = (error: unknown): never => {
    this.#pending = undefined;
    throw error;
  };

  /**
   * @param stopEarly ends the running query early; called when return() or throw() arrives while a step is still
   * pending, so that step settles promptly (tools told to stop, the model request aborted) instead of whenever its
   * work would have ended.
   */
  constructor(
    private readonly loop: AsyncGenerator<LoopOutput, void, undefined>,
    private readonly stopEarly?: () => void,
  ) {}

  next(): Promise<Step> {
    if (this.#pending) return this.#afterPending(() => this.next());
    this.#pending = this.#relay ? this.#read(this.#relay) : this.#fromLoop();
    return this.#pending;
  }

  return(value?: undefined): Promise<Step> {
    if (this.#pending) {
      this.stopEarly?.();
      return this.#afterPending(() => this.return(value));
    }
    this.#relay = undefined;
    return this.loop.return(value) as Promise<Step>;
  }

  throw(error: unknown): Promise<Step> {
    if (this.#pending) {
      this.stopEarly?.();
      return this.#afterPending(() => this.throw(error));
    }
    this.#relay = undefined;
    return this.loop.throw(error) as Promise<Step>;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  #fromLoop(): Promise<Step> {
    return this.loop.next().then(this.#fromLoopStep, this.#fromLoopError);
  }

  /**
   * The loop handed over a model stream. Its read callbacks are made once per stream, not per event, and ignore
   * the late outcome of a read that an abort already answered. Once the stream is open, a client offering a direct
   * read (core's built-in one) is read without the cancellation race: its own signal ends a pending read.
   */
  #startRelay(relay: StreamRelay): Promise<Step> {
    this.#relay = relay;
    let direct: DirectRead | undefined;
    let directPending = false;
    const fail = (error: unknown) => {
      if (directPending) return; // the request's signal makes the pending direct read fail by itself
      const resolve = this.#takeRead(relay);
      resolve?.(this.#resumeLoop(() => relay.fail(error)));
    };
    const step = (event: IteratorResult<RawStreamEvent>): Step | Promise<Step> => {
      if (event.done) return this.#resumeLoop(() => relay.end());
      let message: SDKMessage;
      try {
        message = relay.message(event.value);
      } catch (error) {
        return this.#resumeLoop(() => relay.fail(error)); // a provider `error` event mid-stream
      }
      this.#pending = undefined;
      return { done: false, value: message };
    };
    const onEvent = (event: IteratorResult<RawStreamEvent>) => this.#takeRead(relay)?.(step(event));
    const onDirectEvent = (event: IteratorResult<RawStreamEvent>) => {
      directPending = false;
      return step(event);
    };
    const onDirectError = async (error: unknown): Promise<Step> => {
      directPending = false;
      const mapped = await direct!.mapError(error);
      return this.#resumeLoop(() => relay.fail(mapped));
    };
    relay.onAbort = fail;
    this.#readEvent = () => {
      direct ??= directReadOf(relay.source);
      if (!direct) {
        const read = new Promise<Step>(this.#captureRead);
        relay.source.next().then(onEvent, fail);
        return read;
      }
      directPending = true;
      return direct.events.next().then(onDirectEvent, onDirectError);
    };
    return this.#read(relay);
  }

  /** One provider event for the consumer; at the stream's end or failure, the loop's next message instead. */
  #read(relay: StreamRelay): Promise<Step> {
    if (relay.aborted) return this.#resumeLoop(() => relay.fail(relay.abortReason));
    return this.#readEvent!();
  }

  #takeRead(relay: StreamRelay): ((step: Step | Promise<Step>) => void) | undefined {
    if (this.#relay !== relay) return undefined; // a read this relay no longer owns (answered by an abort)
    const resolve = this.#resolveRead;
    this.#resolveRead = undefined;
    return resolve;
  }

  /** The relayed stream settled: the loop takes its outcome and produces the consumer's next message. */
  #resumeLoop(settle: () => void): Promise<Step> {
    this.#relay = undefined;
    this.#readEvent = undefined;
    settle();
    return this.#fromLoop();
  }

  #afterPending(action: () => Promise<Step>): Promise<Step> {
    return this.#pending!.then(action, action);
  }
}
