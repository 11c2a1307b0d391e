import type { Conversation } from "./conversation.js";
import { AbortError } from "./errors.js";
import type { EventChannel } from "./event-channel.js";
import { toolUseIds } from "./history-invariant.js";
import { linkSignals } from "./linked-signal.js";
import type { ToolResultBlock } from "./messages.js";
import type { BatchResult } from "./tool-batch.js";

/** Why a call was answered when the query ended before its batch ran or finished. */
const NOT_RUN =
  "This tool call was not run: the query ended before its batch started (its consumer stopped reading, or an " +
  "error ended it). Call it again if it is still needed.";

/**
 * Keeps the history invariant at every exit of a query. The loop registers the tool batch it runs; when the query
 * ends early — the consumer `break`s out of `for await` or calls `return()`/`throw()`, or an error propagates — the
 * guard tells running tools to stop, waits for the batch (bounded by the tool grace period), records its results,
 * releases nested agents still waiting to hand their messages to the gone consumer, and answers any call left
 * without a result. The agent is idle and well-formed afterwards, ready for the next query.
 */
export class QueryGuard {
  /** Fires when the query ends early, so running tools and waiting runtimes stop. */
  readonly #stopped = new AbortController();
  /** The query's own signal or an early end: what running tools and runtimes listen to. */
  readonly signal: AbortSignal;
  #batch:
    | {
        done: Promise<BatchResult>;
        channel: EventChannel<unknown>;
        record(result: BatchResult): Promise<void>;
      }
    | undefined;
  #channels = new Set<EventChannel<unknown>>();

  readonly #link: { signal: AbortSignal; release(): void } | undefined;
  #toolLink: { signal: AbortSignal; release(): void } | undefined;

  constructor(
    querySignal: AbortSignal | undefined,
    private readonly interruptSignal: AbortSignal,
  ) {
    this.#link = querySignal ? linkSignals([querySignal, this.#stopped.signal]) : undefined;
    this.signal = this.#link?.signal ?? this.#stopped.signal;
  }

  /**
   * What tool handlers are stopped by: the query's signal, an early end, or interrupt(). Made on first use (a
   * query without tool calls never needs it), once per query.
   */
  get toolSignal(): AbortSignal {
    this.#toolLink ??= linkSignals([this.signal, this.interruptSignal]);
    return this.#toolLink.signal;
  }

  /** Whether the query ended early (stop(), or settle() after the consumer left). */
  get stoppedEarly(): boolean {
    return this.#stopped.signal.aborted;
  }

  /**
   * Ends the query early from outside the loop: the consumer called return() or throw() while a step was still
   * pending (a tool running, a model request in flight). Running tools and the in-flight request are told to stop
   * now, so the pending step settles within the tool grace period instead of whenever the work would have ended.
   */
  stop(): void {
    if (!this.#stopped.signal.aborted)
      this.#stopped.abort(new AbortError("The query's consumer stopped reading it."));
  }

  /** Registers the running batch and how its results are recorded; cleared by batchRecorded(). */
  trackBatch(
    done: Promise<BatchResult>,
    channel: EventChannel<unknown>,
    record: (result: BatchResult) => Promise<void>,
  ): void {
    this.#batch = { done, channel, record };
  }

  batchRecorded(): void {
    this.#batch = undefined;
  }

  /** A channel nested messages flow through; closed when the query ends early so no producer waits forever. */
  trackChannel(channel: EventChannel<unknown>): () => void {
    this.#channels.add(channel);
    return () => this.#channels.delete(channel);
  }

  /**
   * Runs in the query's `finally`. After a normal end there is nothing to do. After an early end it stops what
   * runs, records the batch's results and answers unanswered calls. Best effort: a store failing here is retried
   * by the load-time repair of the next session.
   */
  async settle(conversation: Conversation, completed: boolean): Promise<void> {
    try {
      await this.#settle(conversation, completed);
    } finally {
      this.#link?.release(); // detach from the host's signal: the query is over
      this.#toolLink?.release();
    }
  }

  async #settle(conversation: Conversation, completed: boolean): Promise<void> {
    if (completed && !this.#batch) return;
    this.stop();
    for (const channel of this.#channels) channel.close();
    const batch = this.#batch;
    this.#batch = undefined;
    try {
      if (batch) {
        batch.channel.close();
        await batch.record(await batch.done);
      }
      const last = conversation.messages.at(-1);
      if (last?.role === "assistant" && !last.pendingBatch) {
        const unanswered = toolUseIds(last);
        if (unanswered.length) await conversation.append({ role: "user", content: unanswered.map(notRun) });
      }
    } catch {
      // Swallowed: the query is already ending (and may be propagating its own error).
    }
  }
}

function notRun(id: string): ToolResultBlock {
  return { type: "tool_result", tool_use_id: id, content: NOT_RUN, is_error: true };
}
