import { type QueryControl, runQuery } from "./agent-loop.js";
import { type QueryOptions, validateQueryOptions } from "./agent-options.js";
import type { AgentRuntime } from "./agent-runtime.js";
import {
  type ApprovalDecision,
  discardedResults,
  isResumeInput,
  type PendingApproval,
  pendingBatchOf,
  type ResumeInput,
  undecidedApprovals,
  validateDecisionList,
  withPendingBatch,
} from "./approvals.js";
import { BRANDS, brand } from "./brand.js";
import { AgentClosedError, ConcurrentQueryError, InvalidHistoryError } from "./errors.js";
import { findHistoryProblem } from "./history-invariant.js";
import type { AssistantModelMessage, ModelMessage, PromptInput } from "./messages.js";
import { checkResume, type ResumeCheck } from "./pause-check.js";
import { validatePrompt } from "./prompt-validation.js";
import { QueryIterator } from "./query-iterator.js";
import type { SDKMessage, SDKResultMessage } from "./sdk-messages.js";
import type { LoopOutput } from "./stream-relay.js";
import type { ToolDefinition } from "./tool.js";
import { releaseTracer } from "./tracer.js";

/**
 * The shape that agents, teams and runners share: anything that accepts an agent accepts an AgentLike.
 */
export interface AgentLike<TContext = unknown, TMessage = SDKMessage, TOutput = unknown> {
  query(prompt: PromptInput, options?: QueryOptions<TContext>): AsyncGenerator<TMessage, void, undefined>;
  prompt(prompt: PromptInput, options?: QueryOptions<TContext>): Promise<SDKResultMessage<TOutput>>;
  /** Ends the in-flight query with subtype "interrupted"; false when idle. */
  interrupt(): boolean;
}

/**
 * A live agent session: one conversation, one history. Create it with createAgent()/createBareAgent();
 * the class itself is not exported as a value because the factories also make the session id and workspace.
 */
export class Agent<TContext = unknown, TOutput = unknown>
  implements AgentLike<TContext, SDKMessage, TOutput>, AsyncDisposable
{
  readonly sessionId: string;
  readonly #runtime: AgentRuntime;
  #control: QueryControl | undefined;
  /** The running query's generator, so close() can end it. */
  #active: AsyncGenerator<SDKMessage, void, undefined> | undefined;
  #closing: Promise<void> | undefined;

  /** @internal Use createAgent() or createBareAgent(). */
  constructor(runtime: AgentRuntime) {
    this.#runtime = runtime;
    this.sessionId = runtime.sessionId;
    // How a delegating agent checks this agent's stored pause before its own resumed batch runs (agentTool).
    const check: ResumeCheck = async (decisions, options, history) => {
      if (!history) await runtime.conversation.ensureLoaded();
      await checkResume(runtime, history ?? runtime.conversation.messages, decisions, options);
    };
    brand(this, BRANDS.resumeCheck, check);
  }

  /** The model this agent requests. */
  get model(): string {
    return this.#runtime.model;
  }

  /**
   * Runs one query and yields its SDK messages: system (init), stream_event, assistant, user (tool results)
   * and, last, exactly one result. Throws ConcurrentQueryError when another query of this Agent is running.
   * `{ approvals }` instead of a prompt resumes a query that ended "awaiting_approval" (see resume()).
   */
  query(
    prompt: PromptInput | ResumeInput,
    options: QueryOptions<TContext> = {},
  ): AsyncGenerator<SDKMessage, void, undefined> {
    if (this.#closing) throw new AgentClosedError();
    // Checked before the query starts: a bad prompt or option changes nothing (no history, no store write).
    if (isResumeInput(prompt)) validateDecisionList(prompt.approvals);
    else validatePrompt(prompt);
    validateQueryOptions(options);
    const started: { generator?: AsyncGenerator<SDKMessage, void, undefined> } = {};
    started.generator = new QueryIterator(this.#run(prompt, options, started), () => {
      if (this.#active === started.generator) this.#control?.stop?.();
    });
    return started.generator;
  }

  /**
   * Runs one query to the end and returns its result message. With throwOnError (agent or query option), an
   * error_* result rejects instead, with its typed error (the result on `error.result`).
   */
  async prompt(
    prompt: PromptInput | ResumeInput,
    options: QueryOptions<TContext> = {},
  ): Promise<SDKResultMessage<TOutput>> {
    let result: SDKResultMessage<TOutput> | undefined;
    for await (const message of this.query(prompt, options)) {
      if (message.type === "result") result = message as SDKResultMessage<TOutput>;
    }
    return result!;
  }

  /**
   * Continues a query that ended "awaiting_approval" with a person's decisions: approved calls run (with an edited
   * input, validated again), rejected ones are answered with the reason the model reads, and the loop goes on.
   * Decisions for only some calls are recorded and the query ends awaiting the rest. Works in a new process over the
   * same history store. An unknown id, a call decided twice, or no pause at all throws InvalidApprovalError and
   * changes nothing. Same as `query({ approvals: decisions }, options)`.
   */
  resume(
    decisions: ApprovalDecision[],
    options: QueryOptions<TContext> = {},
  ): AsyncGenerator<SDKMessage, void, undefined> {
    return this.query({ approvals: decisions }, options);
  }

  /** The calls waiting for a person's decision (loading the history first); empty when nothing is paused. */
  async getPendingApprovals(): Promise<PendingApproval[]> {
    await this.#runtime.conversation.ensureLoaded();
    const paused = pendingBatchOf(this.#runtime.conversation.messages);
    return paused ? structuredClone(undecidedApprovals(paused)) : [];
  }

  /**
   * Drops a pause: every call of the paused batch is answered without running (calls that ran before the pause
   * keep their results), so the session accepts new prompts. `message` is what the model reads for the dropped
   * calls. Idle-only. Returns the approvals that were dropped.
   */
  async discardPendingApprovals(options: { message?: string } = {}): Promise<PendingApproval[]> {
    if (this.#control) {
      throw new ConcurrentQueryError(
        "discardPendingApprovals() was called while a query is running. Wait for it to finish first.",
      );
    }
    const conversation = this.#runtime.conversation;
    await conversation.ensureLoaded();
    const last = conversation.messages.at(-1) as AssistantModelMessage | undefined;
    const paused = last?.role === "assistant" ? last.pendingBatch : undefined;
    if (!last || !paused) return [];
    const dropped = undecidedApprovals(paused);
    await conversation.updateLast(withPendingBatch(last, undefined));
    await conversation.append({ role: "user", content: discardedResults(last, paused, options.message) });
    return dropped;
  }

  /** Interrupts the running query (subtype "interrupted"); returns false when no query is running. */
  interrupt(): boolean {
    const control = this.#control;
    if (!control || control.interrupted) return false;
    control.interrupted = true;
    control.request?.abort(new Error("interrupted"));
    control.interruptController.abort();
    return true;
  }

  /**
   * Adds tools to this live agent with the same validation as AgentOptions.tools (unique names, the reserved
   * submit_output name). They are offered from the next model request on, also within a running query.
   */
  addTools(tools: ToolDefinition<any, TContext>[]): void {
    if (!Array.isArray(tools))
      throw new TypeError("addTools() expects an array of tools created with tool().");
    this.#runtime.tools.add(tools, "addTools()");
  }

  /** A copy of the conversation so far (loading it from the history store first), safe to inspect or mutate. */
  async getHistory(): Promise<ModelMessage[]> {
    await this.#runtime.conversation.ensureLoaded();
    return structuredClone(this.#runtime.conversation.messages);
  }

  /**
   * Replaces the whole conversation (and the history store's copy) with `messages`, and suppresses the lazy
   * load. Idle-only: throws ConcurrentQueryError while a query runs. The host owns the content; it must be
   * well-formed (every tool_use answered by a tool_result).
   */
  async replaceHistory(messages: ModelMessage[]): Promise<void> {
    if (this.#control)
      throw new ConcurrentQueryError(
        "replaceHistory() was called while a query is running. Wait for it to finish (or interrupt() it) first.",
      );
    const problem = findHistoryProblem(messages);
    if (problem) {
      throw new InvalidHistoryError(
        `replaceHistory(): ${problem}. Pass a well-formed conversation: { role: "user" | "assistant", content } ` +
          "messages, each assistant tool_use answered by one tool_result in the next user message. Nothing was changed.",
      );
    }
    await this.#runtime.conversation.replace(structuredClone(messages));
  }

  /**
   * Ends this session and releases what it holds: a running query is interrupted and ended, the history store's
   * and the agent tracer's file handles are released (both stay usable; they reopen on the next write), and the
   * private workspace is deleted — unless `keepWorkspace` is true, or the session was named with
   * `AgentOptions.sessionId` (a resumable session's workspace belongs to the session, not to this process).
   * Idempotent; later query() calls throw AgentClosedError. `await using agent = createAgent(…)` calls it.
   */
  close(options: { keepWorkspace?: boolean } = {}): Promise<void> {
    this.#closing ??= this.#release(options);
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #release(options: { keepWorkspace?: boolean }): Promise<void> {
    if (this.#control) {
      this.interrupt();
      await this.#active?.return().catch(() => {});
    }
    const runtime = this.#runtime;
    const keep = options.keepWorkspace ?? runtime.sessionNamed;
    await Promise.all([
      runtime.conversation.release(),
      runtime.tracer ? releaseTracer(runtime.tracer) : undefined,
      runtime.workspace?.close?.({ keep }),
    ]);
  }

  async *#run(
    prompt: PromptInput | ResumeInput,
    options: QueryOptions<TContext>,
    started: { generator?: AsyncGenerator<SDKMessage, void, undefined> },
  ): AsyncGenerator<LoopOutput, void, undefined> {
    if (this.#control) throw new ConcurrentQueryError();
    if (this.#closing) throw new AgentClosedError();
    const control: QueryControl = {
      interrupted: false,
      interruptController: new AbortController(),
      request: undefined,
      stop: undefined,
    };
    this.#control = control;
    this.#active = started.generator;
    try {
      yield* runQuery(this.#runtime, prompt, options, control);
    } finally {
      this.#control = undefined;
      this.#active = undefined;
    }
  }
}
