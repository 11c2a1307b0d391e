import type {} from "@agent-lattice/team"; // its SDKMessage additions: team_message, team_agent
import type { SDKMessage } from "agent-lattice";

/** One line per step of a team run: who did what to which message. Returns the exit code once the result arrives. */
export function renderTeamEvent(
  event: SDKMessage,
  write: (text: string) => void,
  depth = 0,
): number | undefined {
  const indent = "  ".repeat(depth);
  switch (event.type) {
    case "team_message": {
      const { message } = event;
      write(`${indent}[${event.team}] ${message.kind} ${message.from} → ${message.to}: ${event.subtype}\n`);
      return undefined;
    }
    case "team_agent": {
      // A member can complete although its tools failed: say so beside its status.
      const failed = event.tool_errors ? `, failed tools: ${JSON.stringify(event.tool_errors)}` : "";
      const status = event.status ? ` (${event.status}${failed})` : "";
      write(`${indent}[${event.team}] ${event.agent} ${event.subtype}${status}\n`);
      return undefined;
    }
    case "agent_message":
      // A member's own messages; a nested team's events are one level deeper.
      if (event.message.type === "team_message" || event.message.type === "team_agent")
        renderTeamEvent(event.message, write, depth + 1);
      else if (event.message.type === "result")
        write(`${indent}  ${event.agent} answered: ${firstLine(event.message.result)}\n`);
      return undefined;
    case "assistant":
      for (const block of event.message.content) {
        if (block.type === "text" && block.text.trim()) write(`${indent}lead: ${firstLine(block.text)}\n`);
        if (block.type === "tool_use")
          write(`${indent}lead → ${block.name} ${JSON.stringify(block.input)}\n`);
      }
      return undefined;
    case "user":
      for (const block of event.message.content) write(`${indent}receipt: ${String(block.content)}\n`);
      return undefined;
    case "result":
      write(`\n[result: ${event.subtype}] ${event.result}\n`);
      if (event.error) write(`[error] ${event.error.message}\n`);
      return event.is_error ? 1 : 0;
    default:
      return undefined;
  }
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}
