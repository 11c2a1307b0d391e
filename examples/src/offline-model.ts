import {
  type MockAnthropicServer,
  startMockAnthropicServer,
  textTurn,
  toolTurn,
} from "agent-lattice/testing";

type RecordedMessage = { role: string; content: unknown };

/** The text of the n-th tool result the model was sent in this conversation (0-based). */
function toolResultText(messages: RecordedMessage[], n: number): string {
  const results = messages
    .filter(message => message.role === "user" && Array.isArray(message.content))
    .flatMap(message => message.content as Array<{ type: string; content?: unknown }>)
    .filter(block => block.type === "tool_result");
  const content = results[n]?.content;
  if (typeof content === "string") return content.trim();
  if (Array.isArray(content)) return content.map(part => (part as { text?: string }).text ?? "").join("");
  return "";
}

/**
 * A scripted model on the embedded mock server that plays the README's headline program the way a real model
 * does: it calls `multiply`, writes the product to answer.txt with the built-in Write tool, shows the file with
 * Bash, then answers from what the tools returned (so a broken tool shows in the answer). Streams slowly enough
 * to watch.
 */
export function startOfflineModel(options: { chunkDelayMs?: number } = {}): Promise<MockAnthropicServer> {
  const turnOptions = { chunkDelayMs: options.chunkDelayMs ?? 8, model: "offline-mock-model" };
  return startMockAnthropicServer({
    respond: request => {
      const messages = request.body.messages as RecordedMessage[];
      const step = messages.filter(message => message.role === "assistant").length;
      if (step === 0) {
        return toolTurn(
          { name: "multiply", input: { a: 1234, b: 5678 } },
          { text: "I'll multiply first.", ...turnOptions },
        );
      }
      const product = toolResultText(messages, 0);
      if (step === 1) {
        return toolTurn(
          { name: "Write", input: { file_path: "answer.txt", content: `1234 × 5678 = ${product}` } },
          { text: "Now I'll save it.", ...turnOptions },
        );
      }
      if (step === 2) {
        return toolTurn({ name: "Bash", input: { command: "cat answer.txt" } }, turnOptions);
      }
      const shown =
        /<stdout>\n?([\s\S]*?)\n?<\/stdout>/.exec(toolResultText(messages, 2))?.[1] ?? "(nothing)";
      return textTurn(`1234 × 5678 = ${product}. answer.txt in my workspace reads: "${shown}"`, turnOptions);
    },
  });
}
