import { InvalidPromptError } from "./errors.js";
import { describeType } from "./history-invariant.js";
import type { PromptInput } from "./messages.js";

const BLOCK_TYPES = new Set(["text", "image", "document"]);

/**
 * Checks a prompt before it touches the history: a non-blank string, or a non-empty array of text, image and
 * document blocks (the Messages API rejects empty text, and a tool_result in a prompt would answer no call).
 */
export function validatePrompt(prompt: unknown): asserts prompt is PromptInput {
  const hint = 'Pass a non-empty string, or content blocks such as [{ type: "text", text: "…" }].';
  if (typeof prompt === "string") {
    if (prompt.trim() === "") throw new InvalidPromptError(`The prompt is empty. ${hint}`);
    return;
  }
  if (!Array.isArray(prompt)) {
    throw new InvalidPromptError(
      `The prompt must be a string or an array of content blocks, got ${describeType(prompt)}. ${hint}`,
    );
  }
  if (prompt.length === 0) throw new InvalidPromptError(`The prompt has no content blocks. ${hint}`);
  for (const [index, block] of prompt.entries()) {
    const type = (block as { type?: unknown } | null)?.type;
    if (!block || typeof block !== "object" || typeof type !== "string") {
      throw new InvalidPromptError(
        `prompt[${index}] is not a content block (got ${describeType(block)}). ${hint}`,
      );
    }
    if (!BLOCK_TYPES.has(type)) {
      throw new InvalidPromptError(
        `prompt[${index}] has type "${type}"; a prompt may hold text, image and document blocks only` +
          (type === "tool_result"
            ? " (tool results are the SDK's to send, in answer to the model's calls)."
            : "."),
      );
    }
    if (type === "text") {
      const text = (block as { text?: unknown }).text;
      if (typeof text !== "string" || text.trim() === "") {
        throw new InvalidPromptError(`prompt[${index}] is a text block with no text. ${hint}`);
      }
    } else if (
      !(block as { source?: unknown }).source ||
      typeof (block as { source?: unknown }).source !== "object"
    ) {
      throw new InvalidPromptError(
        `prompt[${index}] is an ${type} block without a source, e.g. { type: "${type}", source: { type: "base64", media_type, data } }.`,
      );
    }
  }
}
