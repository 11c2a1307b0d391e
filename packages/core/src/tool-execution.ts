import type { ToolResultBlock, ToolResultContent, ToolUseBlock } from "./messages.js";
import type { PermissionCallback } from "./permission.js";
import { validateWithSchema } from "./schema.js";
import { malformedInputOf } from "./stream-assembler.js";
import type { RunContext, ToolDefinition, ToolHandlerExtra, ToolResult } from "./tool.js";
import type { ReportedUsage } from "./usage.js";
import type { QueryPermissions } from "./workspace.js";

/** Everything a tool call needs from the running query. */
export interface ToolRunContext {
  tools: ReadonlyMap<string, ToolDefinition>;
  permission: PermissionCallback<any> | undefined;
  context: unknown;
  signal: AbortSignal;
  sessionId: string;
  permissions: QueryPermissions;
  emit: ToolHandlerExtra["emit"];
  run: RunContext;
}

/** The outcome of one tool call: the block for the model, plus run-control fields for the loop. */
export interface ToolCallOutcome {
  block: ToolResultBlock;
  endTurn: boolean;
  structuredResult?: unknown;
  /** The error a failing handler threw (for onToolResult hooks). */
  error?: unknown;
  /** Tokens the call spent on its own model requests. */
  usage?: ReportedUsage;
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

export function cancelledOutcome(call: ToolUseBlock): ToolCallOutcome {
  return errorOutcome(call, `Tool "${call.name}" did not run: the query was cancelled.`);
}

/**
 * Finds the tool and validates the model's input. Tool-facing failures (unknown tool, malformed JSON, schema
 * mismatch) are answered here with is_error results the model can act on.
 */
export async function prepareToolCall(call: ToolUseBlock, run: ToolRunContext): Promise<PreparedCall> {
  const answered = (message: string): PreparedCall => ({
    status: "answered",
    call,
    outcome: errorOutcome(call, message),
  });
  const definition = run.tools.get(call.name);
  if (!definition) {
    const available = [...run.tools.keys()].join(", ") || "none";
    return answered(`Tool "${call.name}" is not available. Available tools: ${available}.`);
  }
  const malformed = malformedInputOf(call.input);
  if (malformed !== undefined) {
    return answered(
      `Tool "${call.name}" received input that is not valid JSON (${truncate(malformed, 200)}). Reissue the call with valid JSON input.`,
    );
  }
  const input = await validateWithSchema(definition.schema, call.input);
  if (!input.ok) {
    return answered(
      `Invalid input for tool "${call.name}": ${input.message}. Fix the input and call it again.`,
    );
  }
  return { status: "ready", call, definition, input: input.value };
}

/** Asks permission, then runs the handler. Never throws for tool-facing failures. */
export async function runPreparedCall(
  prepared: Extract<PreparedCall, { status: "ready" }>,
  run: ToolRunContext,
): Promise<ToolCallOutcome> {
  const { call, definition } = prepared;
  let input = prepared.input;
  // submit_output is the harness's own channel, not a host capability, so it is not subject to permission.
  if (run.permission && definition.kind !== "submit_output") {
    let decision: Awaited<ReturnType<PermissionCallback>>;
    try {
      decision = await run.permission({
        toolName: call.name,
        input,
        toolUseId: call.id,
        context: run.context,
        signal: run.signal,
      });
    } catch (error) {
      // Fail closed: a permission check that could not decide must not let the tool run.
      return errorOutcome(
        call,
        `Permission check for tool "${call.name}" failed: ${messageOf(error)}. The tool did not run.`,
        error,
      );
    }
    if (decision?.behavior !== "allow") {
      const reason =
        decision?.behavior === "deny" && decision.message ? decision.message : "denied by the host";
      return errorOutcome(call, `Permission denied for tool "${call.name}": ${reason}`);
    }
    if ("updatedInput" in decision && decision.updatedInput !== undefined) {
      const revalidated = await validateWithSchema(definition.schema, decision.updatedInput);
      if (!revalidated.ok) {
        return errorOutcome(
          call,
          `The permission callback rewrote the input of "${call.name}" into invalid input: ${revalidated.message}`,
        );
      }
      input = revalidated.value;
    }
  }
  if (run.signal.aborted) return cancelledOutcome(call);
  let result: ToolResult;
  try {
    result = await definition.handler(input, {
      context: run.context,
      signal: run.signal,
      toolUseId: call.id,
      sessionId: run.sessionId,
      permissions: run.permissions,
      emit: run.emit,
      run: run.run,
    });
  } catch (error) {
    return errorOutcome(call, `Tool "${call.name}" failed: ${messageOf(error)}`, error);
  }
  return toOutcome(call, result);
}

function toOutcome(call: ToolUseBlock, result: ToolResult): ToolCallOutcome {
  const problem = describeInvalidResult(result);
  if (problem) {
    return errorOutcome(
      call,
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
    return `content is not JSON-serialisable: ${messageOf(error)}`;
  }
  return undefined;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
