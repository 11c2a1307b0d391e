import type { QueryState } from "./agent-loop.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { continuationMessage, findCompactionCut, summaryRequestContent } from "./compaction.js";
import { textOf } from "./messages.js";
import type { RequestScope } from "./request-deadline.js";
import { errorData, type RunTrace } from "./run-trace.js";
import type { SDKMessage } from "./sdk-messages.js";
import { addUsage, normalizeUsage } from "./usage.js";

/**
 * Replaces everything but the last keepRecentMessages messages with a model-written summary, rewriting the
 * stored conversation (and the history store). Yields the `compaction` system message; returns false when
 * nothing was compacted (nothing safe to summarize, or the summarizing request failed).
 */
export async function* compactHistory(
  runtime: AgentRuntime,
  trigger: "threshold" | "recovery",
  state: QueryState,
  newScope: () => RequestScope,
  trace: RunTrace,
): AsyncGenerator<SDKMessage, boolean, undefined> {
  const settings = runtime.compaction!;
  const history = runtime.conversation.messages;
  const cut = findCompactionCut(history, settings.keepRecentMessages);
  if (cut === 0) return false;

  const scope = newScope();
  let summary: string;
  let reported: Parameters<typeof normalizeUsage>[0];
  try {
    const response = await scope.race(
      runtime.client.create({
        model: runtime.model,
        maxTokens: runtime.maxTokens,
        messages: [{ role: "user", content: summaryRequestContent(settings.prompt, history.slice(0, cut)) }],
        tools: [],
        signal: scope.signal,
      }),
    );
    reported = response.usage;
    addUsage(state.usage, reported);
    summary = textOf(response.message?.content ?? []).trim();
  } catch (error) {
    if (trace.enabled) await trace.emit("error", { error: errorData(error), during: "compaction", trigger });
    return false;
  } finally {
    scope.dispose();
  }
  if (!summary) return false;

  await runtime.conversation.replace([continuationMessage(summary), ...history.slice(cut)]);
  const usage = normalizeUsage(reported);
  if (trace.enabled) await trace.emit("compaction", { trigger, compacted_messages: cut, usage, summary });
  yield {
    type: "system",
    subtype: "compaction",
    session_id: runtime.sessionId,
    trigger,
    compacted_messages: cut,
    usage,
  };
  return true;
}
