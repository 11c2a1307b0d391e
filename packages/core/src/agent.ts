import { type LoopSession, type QueryControl, runQuery } from "./agent-loop.js";
import { type QueryOptions, validateQueryOptions } from "./agent-options.js";
import { ConcurrentQueryError } from "./errors.js";
import type { ModelMessage, PromptInput } from "./messages.js";
import type { SDKMessage, SDKResultMessage } from "./sdk-messages.js";

/**
 * The shape that agents, teams and runners share: anything that accepts an agent accepts an AgentLike.
 */
export interface AgentLike<TContext = unknown, TMessage = SDKMessage> {
  query(prompt: PromptInput, options?: QueryOptions<TContext>): AsyncGenerator<TMessage, void, undefined>;
  prompt(prompt: PromptInput, options?: QueryOptions<TContext>): Promise<SDKResultMessage>;
  /** Ends the in-flight query with subtype "interrupted"; false when idle. */
  interrupt(): boolean;
}

/**
 * A live agent session: one conversation, one history. Create it with createAgent()/createBareAgent();
 * the class itself is not exported as a value because the factories also make the session id and workspace.
 */
export class Agent<TContext = unknown> implements AgentLike<TContext> {
  readonly sessionId: string;
  readonly #session: LoopSession;
  #control: QueryControl | undefined;

  /** @internal Use createAgent() or createBareAgent(). */
  constructor(session: LoopSession) {
    this.#session = session;
    this.sessionId = session.sessionId;
  }

  /** The model this agent requests. */
  get model(): string {
    return this.#session.model;
  }

  /**
   * Runs one query and yields its SDK messages: system (init), stream_event, assistant, user (tool results)
   * and, last, exactly one result. Throws ConcurrentQueryError when another query of this Agent is running.
   */
  query(
    prompt: PromptInput,
    options: QueryOptions<TContext> = {},
  ): AsyncGenerator<SDKMessage, void, undefined> {
    validateQueryOptions(options);
    return this.#run(prompt, options);
  }

  /** Runs one query to the end and returns its result message. */
  async prompt(prompt: PromptInput, options: QueryOptions<TContext> = {}): Promise<SDKResultMessage> {
    let result: SDKResultMessage | undefined;
    for await (const message of this.query(prompt, options)) {
      if (message.type === "result") result = message;
    }
    return result!;
  }

  /** Interrupts the running query (subtype "interrupted"); returns false when no query is running. */
  interrupt(): boolean {
    const control = this.#control;
    if (!control || control.interrupted) return false;
    control.interrupted = true;
    control.requestController?.abort(new Error("interrupted"));
    return true;
  }

  /** A copy of the conversation so far, safe to inspect or mutate. */
  async getHistory(): Promise<ModelMessage[]> {
    return structuredClone(this.#session.history);
  }

  async *#run(
    prompt: PromptInput,
    options: QueryOptions<TContext>,
  ): AsyncGenerator<SDKMessage, void, undefined> {
    if (this.#control) throw new ConcurrentQueryError();
    const control: QueryControl = { interrupted: false, requestController: undefined };
    this.#control = control;
    try {
      yield* runQuery(this.#session, prompt, options, control);
    } finally {
      this.#control = undefined;
    }
  }
}
