import type { ModelResponse, RawStreamEvent } from "./model-client.js";
import type { SDKMessage } from "./sdk-messages.js";
import type { StreamAssembler } from "./stream-assembler.js";

/**
 * One model response handed from the loop to the query's consumer. The loop yields it (instead of yielding each
 * event itself) and stays suspended at that yield while the consumer's iterator (QueryIterator) reads the
 * provider's events straight from the stream: an event then costs one promise on our side instead of a trip
 * through every generator of the loop (streamTurn → runTurns → runQuery → Agent) and the promises and closures
 * each trip allocates, which over HTTP was most of what the loop added to a streamed turn (garbage collection).
 * When the stream ends or fails, the iterator resumes the loop, which takes the outcome with result().
 * Back-pressure is unchanged: an event is read only when the consumer asks for the next message.
 */
export class StreamRelay {
  #settled = false;
  #ended = false;
  #failed = false;
  #response: ModelResponse | undefined;
  #error: unknown;
  #aborted = false;
  #abortReason: unknown;
  /**
   * Set by the reader: told when the request is aborted, so a read in flight ends at once even when the
   * ModelClient's stream ignores its signal (the abandoned read's late outcome is ignored).
   */
  onAbort: ((reason: unknown) => void) | undefined;

  constructor(
    readonly source: AsyncIterator<RawStreamEvent>,
    private readonly assembler: StreamAssembler,
    private readonly sessionId: string,
    private readonly turn: number,
  ) {}

  /** The provider's stream reached its end (as opposed to failing or being abandoned mid-way). */
  get ended(): boolean {
    return this.#ended;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get abortReason(): unknown {
    return this.#abortReason;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.onAbort?.(reason);
  }

  /** Folds one event into the response and wraps it for the consumer; throws on a provider `error` event. */
  message(event: RawStreamEvent): SDKMessage {
    this.assembler.push(event);
    return { type: "stream_event", event, session_id: this.sessionId, turn: this.turn };
  }

  /** The stream ended: the response is assembled now (it may still fail, e.g. on a truncated stream). */
  end(): void {
    this.#settled = true;
    this.#ended = true;
    try {
      this.#response = this.assembler.finish();
    } catch (error) {
      this.#failed = true;
      this.#error = error;
    }
  }

  fail(error: unknown): void {
    this.#settled = true;
    this.#failed = true;
    this.#error = error;
  }

  /** For the loop once it resumes: the assembled response, or the stream's failure thrown where it was read. */
  result(): ModelResponse {
    if (!this.#settled) throw new Error("StreamRelay.result() was called before the stream settled.");
    if (this.#failed) throw this.#error;
    return this.#response!;
  }
}

/** What the loop's generators yield: messages for the consumer, and model streams to relay to it. */
export type LoopOutput = SDKMessage | StreamRelay;
