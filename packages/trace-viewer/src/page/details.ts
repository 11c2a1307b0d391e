import type { Usage } from "@agent-lattice/core";
import { badgeOf, errorTitle, labelOf } from "../model/describe.js";
import { formatCount, formatDuration, formatInstant } from "../model/format.js";
import { contentText, dataOf, isRecord, jsonText, str, type TraceEvent } from "../model/trace-event.js";
import {
  agentOf,
  durationOf,
  type ErrorInfo,
  type MemberNode,
  type RunNode,
  type ToolNode,
  type TraceModel,
  type TreeNode,
  type TurnNode,
} from "../model/trace-model.js";
import { type Child, h } from "./dom.js";

export interface DetailsContext {
  model: TraceModel;
  select(node: TreeNode): void;
}

/** The panel for one node: a turn's full request and response, a call's input and result, a run's prompt and result. */
export function renderDetails(node: TreeNode, context: DetailsContext): HTMLElement {
  const body: Child[] = [
    h(
      "header",
      {
        class: `details-head kind-${node.kind}${node.kind === "tool" && node.toolKind === "agent_tool" ? " kind-delegate" : ""}`,
      },
      h("span", { class: "badge" }, badgeOf(node)),
      node.error ? h("span", { class: "error-code" }, errorTitle(node.error)) : null,
      h("h2", null, labelOf(node)),
    ),
  ];
  if (node.error) body.push(errorSection(node.error));
  switch (node.kind) {
    case "run":
      body.push(runDetails(node, context));
      break;
    case "turn":
      body.push(turnDetails(node, context));
      break;
    case "tool":
      body.push(toolDetails(node, context));
      break;
    case "member":
      body.push(memberDetails(node, context));
      break;
    case "event":
      body.push(
        facts([
          ["type", node.type],
          ["source", agentOf(node)],
          ["time", formatInstant(node.start)],
          ["seq", String(node.event.seq)],
        ]),
        section("Data", pre(jsonText(node.event.data, 2))),
      );
      break;
  }
  body.push(rawEvents(node.events));
  return h("article", { class: "details", attrs: { "data-node": node.id } }, body);
}

function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", { class: "detail-section" }, h("h3", null, title), children);
}

function pre(text: string, className = "text"): HTMLElement {
  return h("pre", { class: className }, text);
}

function facts(rows: Array<[string, Child]>): HTMLElement {
  return h(
    "dl",
    { class: "facts" },
    rows
      .filter(([, value]) => value !== undefined && value !== "")
      .map(([name, value]) => [h("dt", null, name), h("dd", null, value)]),
  );
}

function link(node: TreeNode, context: DetailsContext, text = labelOf(node)): HTMLElement {
  const button = h("button", { class: "link", type: "button", attrs: { "data-target": node.id } }, text);
  button.addEventListener("click", () => context.select(node));
  return button;
}

function errorSection(error: ErrorInfo): HTMLElement {
  return h(
    "section",
    { class: "detail-section error-box" },
    h("h3", null, "Error"),
    facts([
      ["name", error.name],
      ["code", error.code],
      ["status", error.status === undefined ? undefined : String(error.status)],
    ]),
    error.message ? pre(error.message) : null,
  );
}

function usageTable(usage: Usage, caption?: string): HTMLElement {
  const cells: Array<[string, number]> = [
    ["input", usage.input_tokens],
    ["output", usage.output_tokens],
    ["cache writes", usage.cache_creation_input_tokens],
    ["cache reads", usage.cache_read_input_tokens],
  ];
  return h(
    "table",
    { class: "usage" },
    caption ? h("caption", null, caption) : null,
    h(
      "tr",
      null,
      cells.map(([name]) => h("th", null, name)),
    ),
    h(
      "tr",
      null,
      cells.map(([name, value]) => h("td", { attrs: { "data-usage": name } }, formatCount(value))),
    ),
  );
}

function timing(node: TreeNode, model: TraceModel): Array<[string, Child]> {
  return [
    ["started", formatInstant(node.start)],
    ["ended", node.end === undefined ? "still running" : formatInstant(node.end)],
    ["duration", formatDuration(durationOf(node, model.end))],
  ];
}

function sameUsage(a: Usage, b: Usage): boolean {
  return (
    a.input_tokens === b.input_tokens &&
    a.output_tokens === b.output_tokens &&
    a.cache_creation_input_tokens === b.cache_creation_input_tokens &&
    a.cache_read_input_tokens === b.cache_read_input_tokens
  );
}

function runDetails(run: RunNode, context: DetailsContext): Child {
  const start = dataOf(run.startEvent, "run_start");
  const result = dataOf(run.result, "result");
  const parent = run.parent;
  const prompt = dataOf(run.prompt, "user_message");
  return [
    facts([
      ["agent", run.agent],
      ["source", run.source === run.agent ? undefined : run.source],
      ["role", run.role],
      ["run_id", run.runId],
      ["session_id", run.sessionId],
      [
        "parent",
        parent ? link(parent, context) : run.orphan ? `${run.parentRunId} (not in these files)` : undefined,
      ],
      ["model", str(start?.model)],
      ["tools", Array.isArray(start?.tools) ? start.tools.map(String).join(", ") : undefined],
      ...timing(run, context.model),
      ["result", str(result?.subtype)],
      ["turns", result?.num_turns === undefined ? String(run.turns.size) : String(result.num_turns)],
      ["stop_reason", str(result?.stop_reason)],
    ]),
    usageTable(run.usage, "Tokens of this run's turns"),
    !sameUsage(run.totalUsage, run.usage)
      ? usageTable(run.totalUsage, "Including delegated runs and team members")
      : null,
    prompt ? section("Prompt", contentView(prompt.content)) : null,
    result ? section("Result", pre(str(result.result) ?? "")) : null,
    result && result.structuredResult !== undefined
      ? section("Structured result", pre(jsonText(result.structuredResult, 2)))
      : null,
  ];
}

function turnDetails(turn: TurnNode, context: DetailsContext): Child {
  const request = dataOf(turn.request, "model_request");
  const response = dataOf(turn.response, "assistant_message");
  const message = isRecord(response?.message) ? response.message : undefined;
  const messages = Array.isArray(request?.messages) ? request.messages : [];
  return [
    facts([
      ["agent", turn.run.agent],
      ["turn", String(turn.turn)],
      ["model", str(message?.model) ?? str(request?.model)],
      ["stop_reason", str(response?.stop_reason)],
      ...timing(turn, context.model),
    ]),
    turn.usage ? usageTable(turn.usage) : null,
    h(
      "section",
      { class: "detail-section response" },
      h("h3", null, "Response"),
      message ? contentView(message.content) : h("p", { class: "muted" }, "No response recorded."),
    ),
    h(
      "section",
      { class: "detail-section request" },
      h("h3", null, "Request"),
      request
        ? [
            facts([
              ["model", str(request.model)],
              ["max_tokens", request.max_tokens === undefined ? undefined : String(request.max_tokens)],
              ["tools", Array.isArray(request.tools) ? request.tools.map(String).join(", ") : undefined],
              ["thinking", request.thinking === undefined ? undefined : jsonText(request.thinking)],
              ["reasoning_effort", str(request.reasoning_effort)],
              [
                "output_format",
                request.output_format === undefined ? undefined : jsonText(request.output_format),
              ],
            ]),
            request.system === undefined
              ? null
              : h(
                  "div",
                  { class: "message role-system" },
                  h("div", { class: "role" }, "system"),
                  contentView(request.system),
                ),
            messages.map((entry, index) =>
              h(
                "div",
                {
                  class: `message role-${isRecord(entry) && entry.role === "assistant" ? "assistant" : "user"}`,
                },
                h(
                  "div",
                  { class: "role" },
                  `${isRecord(entry) ? (str(entry.role) ?? "?") : "?"} · message ${index + 1}`,
                ),
                contentView(isRecord(entry) ? entry.content : entry),
              ),
            ),
          ]
        : h("p", { class: "muted" }, "No request recorded."),
    ),
  ];
}

function toolDetails(call: ToolNode, context: DetailsContext): Child {
  const use = dataOf(call.use, "tool_use");
  const result = dataOf(call.result, "tool_result");
  const children = call.children.filter(child => child.kind === "run" || child.kind === "member");
  return [
    facts([
      ["agent", call.run.agent],
      ["tool", call.name],
      ["id", call.toolUseId],
      ["kind", call.toolKind],
      ["turn", use?.turn === undefined ? undefined : String(use.turn)],
      ["is_error", result ? String(result.is_error === true) : undefined],
      ...timing(call, context.model),
    ]),
    section("Input", pre(jsonText(use?.input, 2))),
    section("Result", result ? contentView(result.content) : h("p", { class: "muted" }, "No result yet.")),
    children.length
      ? section(
          "Delegated runs",
          h(
            "ul",
            null,
            children.map(child => h("li", null, link(child, context))),
          ),
        )
      : null,
  ];
}

function memberDetails(node: MemberNode, context: DetailsContext): Child {
  const outcome = isRecord(node.message.outcome) ? node.message.outcome : undefined;
  const runs = node.children.filter(child => child.kind === "run");
  const call = node.parent?.kind === "tool" ? node.parent : undefined;
  return [
    facts([
      ["member", node.member],
      ["team", node.team],
      ["status", node.status],
      ["mode", node.mode],
      ["mailbox", node.mailbox],
      ["handed off by", call ? link(call, context) : undefined],
      ["message_id", node.messageId],
      ["work_item_id", str(node.message.workItemId)],
      ["thread_id", str(node.message.threadId)],
      ["attempts", node.attempts ? String(node.attempts) : undefined],
      ["sent", formatInstant(node.sentAt)],
      ...timing(node, context.model),
    ]),
    node.usage ? usageTable(node.usage, "Tokens of the member's runs") : null,
    section("Task", contentView(node.message.content)),
    outcome && outcome.content !== undefined ? section("Outcome", contentView(outcome.content)) : null,
    runs.length
      ? section(
          "Member runs",
          h(
            "ul",
            null,
            runs.map(child => h("li", null, link(child, context))),
          ),
        )
      : null,
  ];
}

/** Message content: text as text, tool calls and results labelled, images and documents named. */
function contentView(content: unknown): Child {
  if (typeof content === "string") return pre(content);
  if (!Array.isArray(content)) return pre(jsonText(content, 2));
  return content.map(block => {
    if (!isRecord(block)) return pre(jsonText(block, 2));
    switch (block.type) {
      case "text":
        return pre(str(block.text) ?? "");
      case "thinking":
        return h(
          "div",
          { class: "block" },
          h("div", { class: "block-kind" }, "thinking"),
          pre(str(block.thinking) ?? "", "text thinking"),
        );
      case "tool_use":
        return h(
          "div",
          { class: "block" },
          h("div", { class: "block-kind" }, `tool_use ${str(block.name) ?? ""} ${str(block.id) ?? ""}`),
          pre(jsonText(block.input, 2)),
        );
      case "tool_result":
        return h(
          "div",
          { class: `block${block.is_error === true ? " is-error" : ""}` },
          h(
            "div",
            { class: "block-kind" },
            `tool_result ${str(block.tool_use_id) ?? ""}${block.is_error === true ? " (error)" : ""}`,
          ),
          contentView(block.content),
        );
      default:
        return h(
          "div",
          { class: "block" },
          h("div", { class: "block-kind" }, String(block.type ?? "block")),
          pre(contentText([block])),
        );
    }
  });
}

/** The node's events as JSON, rendered only when opened (a request can be large). */
function rawEvents(events: TraceEvent[]): HTMLElement {
  const container = h("div");
  const details = h(
    "details",
    { class: "raw" },
    h("summary", null, `Raw events (${events.length})`),
    container,
  );
  details.addEventListener("toggle", () => {
    if (details.open && !container.childNodes.length) {
      for (const event of events) container.appendChild(pre(jsonText(event, 2), "text raw-event"));
    }
  });
  return details;
}
