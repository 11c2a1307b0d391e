import { InvalidOptionError } from "./errors.js";
import { type ContentBlock, type ModelMessage, textOf } from "./messages.js";
import { assertKnownOptions } from "./option-validation.js";
import type { ReportedUsage } from "./usage.js";

export interface AutoCompactOptions {
  /** Compact once a response reports more input tokens than this (default 100000). */
  thresholdTokens?: number;
  /** Messages kept verbatim after the summary (default 6). */
  keepRecentMessages?: number;
  /** The instruction the summarizing request uses (default DEFAULT_COMPACTION_PROMPT). */
  prompt?: string;
}

export interface ResolvedCompaction {
  thresholdTokens: number;
  keepRecentMessages: number;
  prompt: string;
}

export const DEFAULT_COMPACTION_PROMPT =
  "Summarize the conversation below so that work can continue from the summary alone. Keep: the user's goal and " +
  "every explicit instruction or constraint; decisions made and why; facts, names, paths, identifiers and numbers " +
  "that later steps need; what has been done, with the results of tool calls that still matter; open questions; " +
  "and the exact next step. Drop pleasantries and superseded details. Write it as plain, dense notes.";

/** Wraps the summary so the next turn resumes the task instead of restarting it. */
export function continuationMessage(summary: string): ModelMessage {
  return {
    role: "user",
    content:
      "[Context compaction] The earlier part of this conversation was replaced by the summary below to save " +
      "context. Continue the task from where it left off, using the summary and the messages after it; do not " +
      `restart the task or repeat completed work.\n\n<summary>\n${summary}\n</summary>`,
  };
}

export function resolveAutoCompact(
  option: boolean | AutoCompactOptions | undefined,
): ResolvedCompaction | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true) {
    assertKnownOptions(
      option,
      new Set(["thresholdTokens", "keepRecentMessages", "prompt"]),
      "AgentOptions.autoCompact",
    );
  }
  const settings = option === true ? {} : option;
  const thresholdTokens = settings.thresholdTokens ?? 100_000;
  const keepRecentMessages = settings.keepRecentMessages ?? 6;
  if (!Number.isInteger(thresholdTokens) || thresholdTokens <= 0) {
    throw new InvalidOptionError("AgentOptions.autoCompact.thresholdTokens must be a positive integer.");
  }
  if (!Number.isInteger(keepRecentMessages) || keepRecentMessages < 0) {
    throw new InvalidOptionError(
      "AgentOptions.autoCompact.keepRecentMessages must be a non-negative integer.",
    );
  }
  if (
    settings.prompt !== undefined &&
    (typeof settings.prompt !== "string" || settings.prompt.trim() === "")
  ) {
    throw new InvalidOptionError("AgentOptions.autoCompact.prompt must be a non-empty string.");
  }
  return { thresholdTokens, keepRecentMessages, prompt: settings.prompt ?? DEFAULT_COMPACTION_PROMPT };
}

/** Everything the provider counted as input: uncached, cache-read and cache-written tokens. */
export function reportedInputTokens(usage: ReportedUsage | undefined): number {
  if (!usage) return 0;
  return (
    (usage.input_tokens ?? 0) +
    (usage.cache_read_input_tokens ?? 0) +
    (usage.cache_creation_input_tokens ?? 0)
  );
}

/**
 * Where to cut: everything before the index is summarized. The kept part never starts with tool results whose
 * tool_use would be summarized away (the API rejects that). 0 means there is nothing safe to summarize.
 */
export function findCompactionCut(history: readonly ModelMessage[], keepRecentMessages: number): number {
  let cut = Math.max(0, history.length - keepRecentMessages);
  while (cut > 0 && startsWithToolResult(history[cut])) cut -= 1;
  return cut;
}

function startsWithToolResult(message: ModelMessage | undefined): boolean {
  return (
    message?.role === "user" &&
    Array.isArray(message.content) &&
    message.content.some(block => block.type === "tool_result")
  );
}

/** An API error that says the prompt did not fit the context window. */
export function isPromptTooLongError(error: unknown): boolean {
  const details = error as { status?: number; type?: string; message?: string } | undefined;
  if (!details || typeof details.message !== "string") return false;
  if (details.status !== undefined && details.status !== 400 && details.status !== 413) return false;
  return /prompt is too long|context (length|window)|too many (input )?tokens|exceeds? the (maximum )?context/i.test(
    details.message,
  );
}

/**
 * The summarizing request sees the old messages as a transcript in one user message: that needs no tool
 * definitions and cannot break tool_use/tool_result pairing, on any provider.
 */
export function summaryRequestContent(prompt: string, messages: readonly ModelMessage[]): string {
  const transcript = messages.map(renderMessage).join("\n\n");
  return `${prompt}\n\n<conversation>\n${transcript}\n</conversation>`;
}

function renderMessage(message: ModelMessage): string {
  const blocks =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content } as ContentBlock]
      : message.content;
  const parts = blocks.map(block => {
    switch (block.type) {
      case "text":
        return block.text;
      case "tool_use":
        return `[tool call ${block.name} ${JSON.stringify(block.input)}]`;
      case "tool_result":
        return `[tool result${block.is_error ? " (error)" : ""}: ${typeof block.content === "string" ? block.content : textOf(block.content)}]`;
      case "thinking":
        return `[thinking: ${block.thinking}]`;
      default:
        return `[${block.type}]`;
    }
  });
  return `${message.role.toUpperCase()}:\n${parts.join("\n")}`;
}
