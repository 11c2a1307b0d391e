import type { ToolResultBlock, ToolResultContent, ToolUseBlock } from "./messages.js";
import type { PermissionCallback } from "./permission.js";
import { validateWithSchema } from "./schema.js";
import { malformedInputOf } from "./stream-assembler.js";
import type { ToolDefinition, ToolResult } from "./tool.js";
import type { QueryPermissions } from "./workspace.js";

/** Everything a tool call needs from the running query. */
export interface ToolRunContext {
  tools: ReadonlyMap<string, ToolDefinition>;
  permission: PermissionCallback<any> | undefined;
  context: unknown;
  signal: AbortSignal;
  sessionId: string;
  permissions: QueryPermissions;
}

/** The outcome of one tool call: the block for the model, plus run-control fields for the loop. */
export interface ToolCallOutcome {
  block: ToolResultBlock;
  endTurn: boolean;
  structuredResult?: unknown;
}

export function errorOutcome(call: ToolUseBlock, message: string): ToolCallOutcome {
  return {
    block: { type: "tool_result", tool_use_id: call.id, content: message, is_error: true },
    endTurn: false,
  };
}

/**
 * Runs one tool call to a tool_result. Never throws for tool-facing failures (unknown tool, bad input,
 * denial, handler error, malformed result): each becomes an is_error result the model can act on.
 */
export async function executeToolCall(call: ToolUseBlock, run: ToolRunContext): Promise<ToolCallOutcome> {
  const definition = run.tools.get(call.name);
  if (!definition) {
    const available = [...run.tools.keys()].join(", ") || "none";
    return errorOutcome(call, `Tool "${call.name}" is not available. Available tools: ${available}.`);
  }
  const malformed = malformedInputOf(call.input);
  if (malformed !== undefined) {
    return errorOutcome(
      call,
      `Tool "${call.name}" received input that is not valid JSON (${truncate(malformed, 200)}). Reissue the call with valid JSON input.`,
    );
  }
  let input = await validateWithSchema(definition.schema, call.input);
  if (!input.ok) {
    return errorOutcome(
      call,
      `Invalid input for tool "${call.name}": ${input.message}. Fix the input and call it again.`,
    );
  }
  if (run.permission) {
    let decision: Awaited<ReturnType<PermissionCallback>>;
    try {
      decision = await run.permission({
        toolName: call.name,
        input: input.value,
        toolUseId: call.id,
        context: run.context,
        signal: run.signal,
      });
    } catch (error) {
      // Fail closed: a permission check that could not decide must not let the tool run.
      return errorOutcome(
        call,
        `Permission check for tool "${call.name}" failed: ${messageOf(error)}. The tool did not run.`,
      );
    }
    if (decision?.behavior !== "allow") {
      const reason =
        decision?.behavior === "deny" && decision.message ? decision.message : "denied by the host";
      return errorOutcome(call, `Permission denied for tool "${call.name}": ${reason}`);
    }
    if ("updatedInput" in decision && decision.updatedInput !== undefined) {
      input = await validateWithSchema(definition.schema, decision.updatedInput);
      if (!input.ok) {
        return errorOutcome(
          call,
          `The permission callback rewrote the input of "${call.name}" into invalid input: ${input.message}`,
        );
      }
    }
  }
  if (run.signal.aborted)
    return errorOutcome(call, `Tool "${call.name}" did not run: the query was cancelled.`);
  let result: ToolResult;
  try {
    result = await definition.handler(input.value, {
      context: run.context,
      signal: run.signal,
      toolUseId: call.id,
      sessionId: run.sessionId,
      permissions: run.permissions,
    });
  } catch (error) {
    return errorOutcome(call, `Tool "${call.name}" failed: ${messageOf(error)}`);
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
