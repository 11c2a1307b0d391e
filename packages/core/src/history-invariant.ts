import type { AssistantModelMessage, ModelMessage, ToolResultBlock, UserContentBlock } from "./messages.js";
import { exceedsNesting, MAX_INPUT_DEPTH } from "./tool-input-limits.js";

/**
 * The history invariant: a conversation the Messages API accepts and our loop can continue. Every message is a
 * `{ role, content }` of the right shape, and every tool_use of an assistant message is answered by exactly one
 * tool_result in the user message right after it (and no tool_result answers a call that is not there). It holds
 * at every exit of a query and is restored on load, wherever a crash or a torn write broke it.
 */

/** The first problem that makes `messages` unusable as a history, or undefined when it is well-formed. */
export function findHistoryProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return `expected an array of messages, got ${describeType(messages)}`;
  for (const [index, message] of messages.entries()) {
    const shape = shapeProblem(message);
    if (shape) return `message ${index}: ${shape}`;
  }
  const history = messages as ModelMessage[];
  for (const [index, message] of history.entries()) {
    const previous = history[index - 1];
    const expected = previous?.role === "assistant" ? toolUseIds(previous) : [];
    const answered = message.role === "user" ? toolResultIds(message) : [];
    for (const id of expected) {
      const count = answered.filter(answer => answer === id).length;
      if (count === 0) {
        return `message ${index - 1} calls tool_use ${JSON.stringify(id)} but message ${index} has no tool_result for it`;
      }
      if (count > 1) return `message ${index} answers tool_use ${JSON.stringify(id)} ${count} times`;
    }
    for (const id of answered) {
      if (!expected.includes(id)) {
        return `message ${index} has a tool_result for ${JSON.stringify(id)}, which message ${index - 1} did not call`;
      }
    }
  }
  const last = history.at(-1);
  if (last?.role === "assistant" && toolUseIds(last).length > 0 && !last.pendingBatch) {
    return `the last message (${history.length - 1}) calls tools that no tool_result answers`;
  }
  return undefined;
}

/**
 * Restores the invariant on a loaded history without losing what it holds: a tool_use with no answer gets an
 * is_error tool_result saying the call did not complete; duplicate answers are dropped; a tool_result whose call
 * is gone is replaced by a text note; messages of the wrong shape are dropped. Returns the same array when nothing
 * needed repair.
 */
export function repairHistory(messages: readonly ModelMessage[]): {
  messages: ModelMessage[];
  changed: boolean;
} {
  const valid = messages.filter(message => shapeProblem(message) === undefined);
  let changed = valid.length !== messages.length;
  const out: ModelMessage[] = [];
  for (let index = 0; index < valid.length; index++) {
    const message = valid[index]!;
    const previous = out.at(-1);
    const expected = previous?.role === "assistant" ? toolUseIds(previous) : [];
    if (message.role === "user") {
      const repaired = answerExactly(message.content, expected);
      if (repaired !== message.content) changed = true;
      out.push(repaired === message.content ? message : { role: "user", content: repaired });
      continue;
    }
    if (expected.length > 0) {
      // An assistant message right after unanswered calls (or after a pause that was never resumed): answer them.
      out.push({ role: "user", content: expected.map(unfinishedResult) });
      changed = true;
    }
    out.push(message);
  }
  const last = out.at(-1);
  // A batch paused for approval is not dangling: its calls wait for agent.resume().
  if (last?.role === "assistant" && toolUseIds(last).length > 0 && !last.pendingBatch) {
    out.push({ role: "user", content: toolUseIds(last).map(unfinishedResult) });
    changed = true;
  }
  return changed ? { messages: out, changed } : { messages: [...messages], changed: false };
}

/** The user content answering exactly `expected`, in order: missing answers added, duplicates and orphans dropped. */
function answerExactly(
  content: string | UserContentBlock[],
  expected: string[],
): string | UserContentBlock[] {
  if (typeof content === "string") {
    return expected.length ? [...expected.map(unfinishedResult), { type: "text", text: content }] : content;
  }
  const seen = new Set<string>();
  let changed = false;
  const kept: UserContentBlock[] = [];
  for (const block of content) {
    if (block.type !== "tool_result") {
      kept.push(block);
      continue;
    }
    if (!expected.includes(block.tool_use_id) || seen.has(block.tool_use_id)) {
      changed = true;
      if (!expected.includes(block.tool_use_id)) kept.push(orphanNote(block));
      continue;
    }
    seen.add(block.tool_use_id);
    kept.push(block);
  }
  const missing = expected.filter(id => !seen.has(id));
  if (!missing.length && !changed) return content;
  // tool_results first, as the API requires; then whatever else the message said.
  const results = [...kept.filter(block => block.type === "tool_result"), ...missing.map(unfinishedResult)];
  const rest = kept.filter(block => block.type !== "tool_result");
  const ordered = expected.map(id => results.find(block => block.tool_use_id === id)!);
  const merged = [...ordered, ...rest];
  return merged.length ? merged : [{ type: "text", text: "(empty message restored by the SDK)" }];
}

export function unfinishedResult(id: string): ToolResultBlock {
  return {
    type: "tool_result",
    tool_use_id: id,
    content:
      "This tool call did not complete: the session stopped before its result was recorded. Check whether it " +
      "took effect before repeating it.",
    is_error: true,
  };
}

function orphanNote(block: ToolResultBlock): UserContentBlock {
  return {
    type: "text",
    text: `(A tool result for call ${block.tool_use_id} was dropped: the call it answered is no longer in the conversation.)`,
  };
}

export function toolUseIds(message: AssistantModelMessage): string[] {
  return message.content.flatMap(block => (block.type === "tool_use" ? [block.id] : []));
}

function toolResultIds(message: ModelMessage): string[] {
  if (typeof message.content === "string") return [];
  return (message.content as UserContentBlock[]).flatMap(block =>
    block.type === "tool_result" ? [block.tool_use_id] : [],
  );
}

/** Why one message is not a `{ role, content }` the SDK can send, or undefined. */
function shapeProblem(message: unknown): string | undefined {
  if (!message || typeof message !== "object")
    return `expected { role, content }, got ${describeType(message)}`;
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (role !== "user" && role !== "assistant")
    return `role must be "user" or "assistant", got ${describeType(role)}`;
  if (typeof content === "string") {
    return role === "assistant" ? "assistant content must be an array of content blocks" : undefined;
  }
  if (!Array.isArray(content))
    return `content must be a string or an array of content blocks, got ${describeType(content)}`;
  for (const [index, block] of content.entries()) {
    if (!block || typeof block !== "object" || typeof (block as { type?: unknown }).type !== "string") {
      return `content[${index}] must be a content block such as { type: "text", text }`;
    }
    const typed = block as {
      type: string;
      id?: unknown;
      tool_use_id?: unknown;
      input?: unknown;
      text?: unknown;
    };
    if (typed.type === "text" && typeof typed.text !== "string")
      return `content[${index}] is a text block without text`;
    if (typed.type === "tool_use") {
      if (role !== "assistant") return `content[${index}]: tool_use blocks belong in assistant messages`;
      if (typeof typed.id !== "string") return `content[${index}]: tool_use needs a string id`;
      if (exceedsNesting(typed.input, MAX_INPUT_DEPTH)) {
        return `content[${index}]: tool_use input is nested deeper than ${MAX_INPUT_DEPTH} levels`;
      }
    }
    if (typed.type === "tool_result") {
      if (role !== "user") return `content[${index}]: tool_result blocks belong in user messages`;
      if (typeof typed.tool_use_id !== "string")
        return `content[${index}]: tool_result needs a string tool_use_id`;
    }
  }
  return undefined;
}

export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string"
    ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
    : typeof value;
}
