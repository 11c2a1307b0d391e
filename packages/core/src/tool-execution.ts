import type { ApprovalDecision, PendingApproval } from "./approvals.js";
import type { ToolResultBlock, ToolResultContent, ToolUseBlock } from "./messages.js";
import type { PermissionCallback } from "./permission.js";
import { validateWithSchema } from "./schema.js";
import { malformedInputOf } from "./stream-assembler.js";
import type { RunContext, ToolDefinition, ToolHandlerExtra, ToolResult } from "./tool.js";
import { rejectionOf } from "./tool-input-limits.js";
import type { ReportedUsage } from "./usage.js";
import type { QueryPermissions } from "./workspace.js";

/** Everything a tool call needs from the running query. */
export interface ToolRunContext {
  tools: ReadonlyMap<string, ToolDefinition>;
  permission: PermissionCallback<any> | undefined;
  context: unknown;
  /** Aborted when the query is aborted or its consumer stopped: running handlers are told to stop. */
  signal: AbortSignal;
  /**
   * `signal`, or interrupt(): what stops a plain tool's handler, and calls not yet started. Delegation tools
   * (kind "agent_tool") listen to `signal` only: they pass an interrupt on to the agent they run (run.interrupted),
   * which ends its own batch the same way and reports "interrupted" rather than "aborted".
   */
  stopSignal: AbortSignal;
  /**
   * How long a handler told to stop (abort, or its own timeout) may take to settle before it is abandoned and
   * answered with an error result, so no tool can hold the query (and the agent) forever.
   */
  graceMs: number;
  sessionId: string;
  permissions: QueryPermissions;
  emit: ToolHandlerExtra["emit"];
  run: RunContext;
}

/**
 * Why a tool's handler produced no result of its own: it threw, ran past its timeoutMs, was abandoned after being
 * told to stop (abort, interrupt, or the consumer leaving) and ignoring it past the grace period, or returned
 * something that is not a tool result.
 */
export type ToolFailureReason = "threw" | "timeout" | "abandoned" | "invalid_result";

/** The outcome of one tool call: the block for the model, plus run-control fields for the loop. */
export interface ToolCallOutcome {
  block: ToolResultBlock;
  endTurn: boolean;
  structuredResult?: unknown;
  /** The error a failing handler threw (for onToolResult hooks). */
  error?: unknown;
  /** Set when the handler failed (as opposed to a tool reporting an error result of its own). */
  failure?: ToolFailureReason;
  /** Set when the call was refused before running because of its input: why, as the model was told. */
  rejection?: string;
  /** Tokens the call spent on its own model requests. */
  usage?: ReportedUsage;
  /** The call paused inside on approvals (a delegated agent): the batch pauses instead of recording it. */
  suspended?: { approvals: PendingApproval[]; state: unknown };
}

/**
 * A call that paused inside (a delegated agent awaiting approval). Its block is what the model would read if the
 * query ended before the pause was recorded (the consumer left): an error saying the call did not finish.
 */
function suspendedOutcome(call: ToolUseBlock, result: ToolResult): ToolCallOutcome {
  const suspend = result.suspend!;
  if (!Array.isArray(suspend.approvals) || suspend.approvals.length === 0) {
    return failedOutcome(
      call,
      "invalid_result",
      `Tool "${call.name}" returned suspend without any approvals. This is a bug in the tool.`,
    );
  }
  const outcome = errorOutcome(
    call,
    `Tool "${call.name}" paused for approval of ${suspend.approvals.length} call(s) and did not finish.`,
  );
  outcome.suspended = { approvals: suspend.approvals, state: suspend.state };
  if (result.usage) outcome.usage = result.usage;
  return outcome;
}

/** A call whose input passed its schema and is ready to run, or one already answered. */
export type PreparedCall =
  | { status: "ready"; call: ToolUseBlock; definition: ToolDefinition; input: unknown }
  | { status: "answered"; call: ToolUseBlock; outcome: ToolCallOutcome };

export function errorOutcome(call: ToolUseBlock, message: string, error?: unknown): ToolCallOutcome {
  const outcome: ToolCallOutcome = {
    block: { type: "tool_result", tool_use_id: call.id, content: message, is_error: true },
    endTurn: false,
  };
  if (error !== undefined) outcome.error = error;
  return outcome;
}

function failedOutcome(
  call: ToolUseBlock,
  failure: ToolFailureReason,
  message: string,
  error?: unknown,
): ToolCallOutcome {
  const outcome = errorOutcome(call, message, error);
  outcome.failure = failure;
  return outcome;
}

/** Default per-call deadline of tools made with tool() (delegation tools honour the query's signal instead). */
export const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60 * 1000;
/** Default grace a handler gets to settle after it was told to stop. */
export const DEFAULT_TOOL_ABORT_GRACE_MS = 1_000;

export function cancelledOutcome(call: ToolUseBlock, run: ToolRunContext): ToolCallOutcome {
  return errorOutcome(call, `Tool "${call.name}" did not run: ${stopCause(run)}.`);
}

/** Why a call was told to stop (or not started): the query was cancelled, or interrupted. */
function stopCause(run: ToolRunContext): string {
  return run.signal.aborted ? "the query was cancelled" : "the query was interrupted";
}

/**
 * Finds the tool and validates the model's input. Tool-facing failures (unknown tool, malformed JSON, schema
 * mismatch) are answered here with is_error results the model can act on.
 */
export async function prepareToolCall(
  call: ToolUseBlock,
  run: Pick<ToolRunContext, "tools">,
): Promise<PreparedCall> {
  const answered = (message: string, rejection: string): PreparedCall => {
    const outcome = errorOutcome(call, message);
    outcome.rejection = rejection;
    return { status: "answered", call, outcome };
  };
  const definition = run.tools.get(call.name);
  if (!definition) {
    const available = [...run.tools.keys()].join(", ") || "none";
    return answered(
      `Tool "${call.name}" is not available. Available tools: ${available}.`,
      `no tool is named "${call.name}"`,
    );
  }
  const rejected = rejectionOf(call.input);
  if (rejected !== undefined) {
    return answered(
      `Tool "${call.name}" was not run: its input was rejected because ${rejected}. Reissue the call with a smaller, flatter input.`,
      rejected,
    );
  }
  const malformed = malformedInputOf(call.input);
  if (malformed !== undefined) {
    return answered(
      `Tool "${call.name}" received input that is not valid JSON (${truncate(malformed, 200)}). Reissue the call with valid JSON input.`,
      `its input is not valid JSON (${truncate(malformed, 200)})`,
    );
  }
  const input = await validateWithSchema(definition.schema, call.input);
  if (!input.ok) {
    return answered(
      `Invalid input for tool "${call.name}": ${input.message}. Fix the input and call it again.`,
      input.message,
    );
  }
  return { status: "ready", call, definition, input: input.value };
}

/**
 * Runs a planned call's handler (permission and approval were decided when the batch was planned). Never throws
 * for tool-facing failures.
 */
export async function runPlannedCall(
  call: ToolUseBlock,
  definition: ToolDefinition,
  input: unknown,
  run: ToolRunContext,
): Promise<ToolCallOutcome> {
  if (run.stopSignal.aborted) return cancelledOutcome(call, run);
  return runHandler(call, definition, extra => definition.handler(input, extra), run);
}

/** Continues a call that paused inside (a delegated agent awaiting approval), under the same bounds as a handler. */
export async function resumeSuspendedCall(
  call: ToolUseBlock,
  definition: ToolDefinition,
  state: unknown,
  decisions: ApprovalDecision[],
  run: ToolRunContext,
): Promise<ToolCallOutcome> {
  if (typeof definition.resume !== "function") {
    return errorOutcome(
      call,
      `Tool "${call.name}" paused for approval but cannot be resumed (it has no resume()).`,
    );
  }
  if (run.stopSignal.aborted) return cancelledOutcome(call, run);
  return runHandler(call, definition, extra => definition.resume!(state, decisions, extra), run);
}

/**
 * Runs the handler under its own signal, which fires when the query is aborted (or its consumer stopped) or when
 * the call's timeout passes. A handler that has not settled `graceMs` after its signal fired is abandoned: the
 * call is answered with an error result that says so, and the query goes on (the handler may still be running;
 * its late result is discarded).
 */
async function runHandler(
  call: ToolUseBlock,
  definition: ToolDefinition,
  invoke: (extra: ToolHandlerExtra) => ToolResult | Promise<ToolResult>,
  run: ToolRunContext,
): Promise<ToolCallOutcome> {
  const stop = new CallStop();
  // A delegation passes an interrupt on to the agent it runs; any other handler is stopped by it.
  const stopSignal = definition.kind === "agent_tool" ? run.signal : run.stopSignal;
  const onQueryStop = () => stop.fire(stopSignal.reason);
  stopSignal.addEventListener("abort", onQueryStop, { once: true });
  const timeoutMs = timeoutOf(definition);
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop.fire(new Error(`Tool "${call.name}" timed out after ${timeoutMs} ms.`));
        }, timeoutMs);
  try {
    const settled = await settleWithinGrace(
      () =>
        invoke({
          context: run.context,
          // A getter: the AbortSignal is made only for handlers that read it (most never do).
          get signal() {
            return stop.signal;
          },
          toolUseId: call.id,
          sessionId: run.sessionId,
          permissions: run.permissions,
          emit: run.emit,
          run: run.run,
        }),
      stop,
      run.graceMs,
    );
    if (settled.kind === "abandoned") {
      const why = timedOut ? `it ran past its ${timeoutMs} ms timeout` : stopCause(run);
      return failedOutcome(
        call,
        "abandoned",
        `Tool "${call.name}" was stopped because ${why}, and did not finish within ${run.graceMs} ms after being ` +
          "told to stop, so it was abandoned. It may have taken partial effect: check before repeating it.",
      );
    }
    if (timedOut) {
      return failedOutcome(
        call,
        "timeout",
        `Tool "${call.name}" did not finish within its ${timeoutMs} ms timeout and was stopped. Retry with a smaller task, or raise the tool's timeoutMs.`,
        settled.kind === "threw" ? settled.error : undefined,
      );
    }
    if (settled.kind === "threw") {
      return failedOutcome(
        call,
        "threw",
        `Tool "${call.name}" failed: ${describeThrown(settled.error)}`,
        settled.error,
      );
    }
    return toOutcome(call, settled.value);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    stopSignal.removeEventListener("abort", onQueryStop);
  }
}

/**
 * The stop of one tool call (query aborted, or its timeout): the handler's signal, made on first read, and the
 * start of the grace period. Creating an AbortController per call cost more than running a small handler.
 */
class CallStop {
  #controller: AbortController | undefined;
  #stopped = false;
  #reason: unknown;
  /** Called once, when the call is told to stop. */
  onFire: (() => void) | undefined;

  get stopped(): boolean {
    return this.#stopped;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#stopped) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  fire(reason: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.onFire?.();
  }
}

function timeoutOf(definition: ToolDefinition): number | undefined {
  if (definition.timeoutMs === false) return undefined;
  if (typeof definition.timeoutMs === "number") return definition.timeoutMs;
  return definition.kind === "tool" ? DEFAULT_TOOL_TIMEOUT_MS : undefined;
}

type Settled<T> = { kind: "value"; value: T } | { kind: "threw"; error: unknown } | { kind: "abandoned" };

/** Starts `work` and settles with its outcome, or with "abandoned" once `stop` fired and `graceMs` passed. */
function settleWithinGrace<T>(
  work: () => T | Promise<T>,
  stop: CallStop,
  graceMs: number,
): Promise<Settled<T>> {
  return new Promise(resolve => {
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const startGrace = () => {
      graceTimer = setTimeout(() => resolve({ kind: "abandoned" }), graceMs);
    };
    const done = (outcome: Settled<T>) => {
      if (graceTimer !== undefined) clearTimeout(graceTimer);
      stop.onFire = undefined;
      resolve(outcome);
    };
    if (stop.stopped) startGrace();
    else stop.onFire = startGrace;
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(work());
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      value => done({ kind: "value", value }),
      error => done({ kind: "threw", error }),
    );
  });
}

function toOutcome(call: ToolUseBlock, result: ToolResult): ToolCallOutcome {
  if (result && typeof result === "object" && result.suspend) return suspendedOutcome(call, result);
  const problem = describeInvalidResult(result);
  if (problem) {
    return failedOutcome(
      call,
      "invalid_result",
      `Tool "${call.name}" returned an invalid result (${problem}). This is a bug in the tool.`,
    );
  }
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: call.id, content: result.content };
  if (result.isError) block.is_error = true;
  const outcome: ToolCallOutcome = { block, endTurn: result.endTurn === true };
  if (result.usage) outcome.usage = result.usage;
  if (outcome.endTurn && result.structuredResult !== undefined)
    outcome.structuredResult = result.structuredResult;
  return outcome;
}

/** A result must be `{ content: string | blocks }` and JSON-serialisable, or the provider would reject the request. */
function describeInvalidResult(result: ToolResult): string | undefined {
  if (result === null || typeof result !== "object") return `expected { content }, got ${typeof result}`;
  const content: ToolResultContent | undefined = result.content;
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content))
    return `content must be a string or an array of content blocks, got ${typeof content}`;
  for (const block of content) {
    if (!block || typeof block !== "object" || typeof (block as { type?: unknown }).type !== "string") {
      return 'content array entries must be content blocks such as { type: "text", text }';
    }
  }
  try {
    JSON.stringify(content);
  } catch (error) {
    return `content is not JSON-serialisable: ${describeThrown(error)}`;
  }
  return undefined;
}

export function messageOf(error: unknown): string {
  return describeThrown(error);
}

/**
 * A safe, readable description of anything a handler or callback threw: an Error's message, a `message` string,
 * else String(value) — and when even that throws (an object without a prototype, a Proxy, a throwing toString),
 * a generic tag. Never throws.
 */
export function describeThrown(value: unknown): string {
  try {
    const message = (value as { message?: unknown } | null)?.message;
    if (typeof message === "string" && message !== "") return message;
  } catch {
    // a throwing getter or Proxy trap
  }
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return "an unprintable value";
    }
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
