import { contentText, dataOf, isRecord, jsonText, str } from "./trace-event.js";
import { agentOf, type ErrorInfo, type TreeNode } from "./trace-model.js";

/** The short badge a row shows for its kind. */
export function badgeOf(node: TreeNode): string {
  switch (node.kind) {
    case "run":
      if (node.role === "team") return "team";
      if (node.role === "lead") return "lead";
      return node.parentRunId === undefined || node.orphan ? "run" : "agent";
    case "member":
      // The delegation's mode as the badge ("handoff", "ask"); anything else the file says stays in the details.
      return node.mode === "handoff" || node.mode === "ask" ? node.mode : "member";
    case "turn":
      return "llm";
    case "tool":
      return node.toolKind === "agent_tool" ? "delegate" : "tool";
    case "event":
      return node.type;
  }
}

/** One line saying what the node is; plain text (the page renders it as text, never as markup). */
export function labelOf(node: TreeNode): string {
  switch (node.kind) {
    case "run": {
      const prompt = dataOf(node.prompt, "user_message");
      const text = prompt ? contentText(prompt.content) : "";
      return text ? `${node.agent} — ${oneLine(text, 140)}` : node.agent;
    }
    case "member": {
      // "researcher · completed — Find the existing note routes…": who, how it ended, what they were asked.
      const task = contentText(node.message.content);
      const head = `${node.member} · ${node.status}`;
      return task ? `${head} — ${oneLine(task, 140)}` : head;
    }
    case "turn": {
      const message = dataOf(node.response, "assistant_message")?.message;
      const content = isRecord(message) && Array.isArray(message.content) ? message.content : [];
      const texts: string[] = [];
      const calls: string[] = [];
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
        if (block.type === "tool_use") calls.push(str(block.name) ?? "tool");
      }
      const said = oneLine(texts.join(" "), 120);
      const summary = [said, calls.length ? `→ ${calls.join(", ")}` : ""].filter(Boolean).join(" ");
      if (!node.response) return `turn ${node.turn} (${node.error ? "failed" : "awaiting response"})`;
      return summary ? `turn ${node.turn}: ${summary}` : `turn ${node.turn}`;
    }
    case "tool": {
      const input = dataOf(node.use, "tool_use")?.input;
      return `${node.name}${input === undefined ? "" : ` ${oneLine(jsonText(input), 140)}`}`;
    }
    case "event":
      return eventLabel(node.type, node.event.data, node.error);
  }
}

function eventLabel(type: string, data: unknown, error: ErrorInfo | undefined): string {
  if (type === "error" && error) return `${errorTitle(error)}: ${oneLine(error.message ?? "", 160)}`;
  if (!isRecord(data)) return type;
  if (type === "compaction") {
    return `compaction (${str(data.trigger) ?? "?"}): ${String(data.compacted_messages ?? "?")} messages summarised`;
  }
  if (type === "user_message") return `input: ${oneLine(contentText(data.content), 140)}`;
  // A generic event: its subtype and the first few scalar fields, so a team_agent row reads
  // "team_agent started agent=researcher …" without the viewer knowing the type.
  const parts = [type];
  if (typeof data.subtype === "string") parts.push(data.subtype);
  for (const [key, value] of Object.entries(data)) {
    if (parts.length >= 6) break;
    if (key === "subtype") continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      parts.push(`${key}=${oneLine(String(value), 60)}`);
  }
  return parts.join(" ");
}

/** "APIError rate_limit_error 429" — the parts of an error that identify it. */
export function errorTitle(error: ErrorInfo): string {
  return (
    [error.name, error.code, error.status === undefined ? undefined : String(error.status)]
      .filter(Boolean)
      .join(" ") || "error"
  );
}

export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * What the text filter searches: a node's own content, not its children's (they match on their own), and not a
 * turn's whole request (every later turn re-sends the history, so searching it would match them all).
 */
export function searchTextOf(node: TreeNode): string {
  if (node.searchText !== undefined) return node.searchText;
  const parts: string[] = [agentOf(node), badgeOf(node), labelOf(node)];
  if (node.error) parts.push(errorTitle(node.error), node.error.message ?? "");
  switch (node.kind) {
    case "run":
      parts.push(node.runId, node.sessionId, jsonText(node.startEvent?.data), jsonText(node.result?.data));
      break;
    case "turn":
      parts.push(jsonText(node.response?.data));
      break;
    case "tool":
      parts.push(node.toolUseId, jsonText(node.use?.data), jsonText(node.result?.data));
      break;
    case "member":
      parts.push(node.team, node.messageId, jsonText(node.message));
      break;
    case "event":
      parts.push(jsonText(node.event.data));
      break;
  }
  node.searchText = parts.join("\n").toLowerCase();
  return node.searchText;
}
