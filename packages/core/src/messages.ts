import type { PendingBatch } from "./approvals.js";

/**
 * Conversation content, in the Anthropic Messages wire vocabulary (snake_case fields), so that history
 * can be sent to any Anthropic-compatible provider without translation.
 */

/**
 * `cache_control` marks a prompt-cache breakpoint. Core places these on copies of the blocks it sends (see
 * `promptCaching`); they never enter the stored history unless the host put them into its own prompt.
 */
export type TextBlock = {
  type: "text";
  text: string;
  citations?: unknown[] | null;
  cache_control?: CacheControl;
};

export type Base64Source = { type: "base64"; media_type: string; data: string };
export type UrlSource = { type: "url"; url: string };
export type PlainTextSource = { type: "text"; media_type: "text/plain"; data: string };
export type FileSource = { type: "file"; file_id: string };

export type ImageBlock = {
  type: "image";
  source: Base64Source | UrlSource | FileSource;
  cache_control?: CacheControl;
};

export type DocumentBlock = {
  type: "document";
  source: Base64Source | UrlSource | PlainTextSource | FileSource;
  title?: string;
  context?: string;
  citations?: { enabled: boolean };
  cache_control?: CacheControl;
};

/** A prompt-cache breakpoint in the Anthropic wire format: cache the prompt up to and including this block. */
export type CacheControl = { type: "ephemeral"; ttl?: "5m" | "1h" };

/** Model reasoning. The signature must be sent back unchanged on later turns. */
export type ThinkingBlock = { type: "thinking"; thinking: string; signature: string };
export type RedactedThinkingBlock = { type: "redacted_thinking"; data: string };

export type ToolUseBlock = {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
  cache_control?: CacheControl;
};

export type ToolResultContent = string | Array<TextBlock | ImageBlock | DocumentBlock>;

export type ToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content: ToolResultContent;
  is_error?: boolean;
  cache_control?: CacheControl;
};

/** Blocks a host may put in a prompt (multimodal input). */
export type UserContentBlock = TextBlock | ImageBlock | DocumentBlock | ToolResultBlock;

/** Blocks a model may produce. */
export type AssistantContentBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;

export type ContentBlock = UserContentBlock | AssistantContentBlock;

/** What `query()`/`prompt()` accept: plain text or Anthropic content blocks (text, image, document). */
export type PromptInput = string | UserContentBlock[];

export type UserModelMessage = { role: "user"; content: string | UserContentBlock[] };

/**
 * One assembled model turn. `providerResponseId` and `model` are the provider's response id and the model
 * that actually served it (may differ from the requested model); absent when the client does not report them.
 */
export type AssistantModelMessage = {
  role: "assistant";
  content: AssistantContentBlock[];
  providerResponseId?: string;
  model?: string;
  /**
   * Present while this turn's tool batch is paused for human approval (the query ended "awaiting_approval"): what
   * each call is waiting for. Stored with the history, never sent to the model.
   */
  pendingBatch?: PendingBatch;
};

export type ModelMessage = UserModelMessage | AssistantModelMessage;

export function textOf(content: readonly ContentBlock[] | string): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const block of content) if (block.type === "text") text += block.text;
  return text;
}

export function toolUsesOf(message: AssistantModelMessage): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}
