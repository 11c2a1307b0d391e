import type { JsonSchemaBacked, ToolDefinition, ToolHandlerExtra, ToolResult } from "@agent-lattice/core";
import { tool } from "@agent-lattice/core";
import { acceptGrants } from "@agent-lattice/core/internal";
import { TeamError } from "./errors.js";
import { TERMINAL_STATUSES, type TeamMessage, type TeamMessageStatus } from "./mailbox.js";
import { type MailboxToolContext, mailboxContextOf } from "./mailbox-context.js";
import { isToolCapable } from "./team-member.js";

export const MAILBOX_TOOL_NAMES = [
  "team_send",
  "team_inbox",
  "team_read",
  "team_reply",
  "team_followup",
  "team_status",
] as const;

// Agents that already carry the mailbox tools, shared across installed copies of this package: the tools find
// their team through the query's runtime, so one set serves an agent in any number of teams.
const INSTALLED_KEY = Symbol.for("agent-lattice.team.mailbox-tools-installed");
const installed: WeakSet<object> =
  ((globalThis as Record<symbol, unknown>)[INSTALLED_KEY] as WeakSet<object> | undefined) ??
  new WeakSet<object>();
(globalThis as Record<symbol, unknown>)[INSTALLED_KEY] = installed;

export function hasMailboxTools(agent: unknown): boolean {
  return !!agent && typeof agent === "object" && installed.has(agent);
}

/**
 * Gives an agent that accepts tools (addTools()) the six team_* mailbox tools, once. Agents that cannot take tools
 * (a nested team, a host AgentLike) are left alone: they still receive work, they just cannot operate mailboxes.
 */
export function installMailboxTools(agent: unknown, owner: string): boolean {
  if (!isToolCapable(agent)) return false;
  if (installed.has(agent)) return true;
  try {
    agent.addTools(mailboxTools());
  } catch (error) {
    const name = /named "([^"]+)"/.exec(String((error as Error)?.message))?.[1];
    throw new TeamError(
      "team_tool_conflict",
      `${owner}: the agent already has a tool named "${name ?? "team_*"}", which the team's mailbox tools (${MAILBOX_TOOL_NAMES.join(", ")}) need. Rename that tool.`,
      { cause: error },
    );
  }
  installed.add(agent);
  return true;
}

let cached: ToolDefinition[] | undefined;

/** The six mailbox tools. Stateless: each call finds its mailbox context in `extra.run.runtime`. */
export function mailboxTools(): ToolDefinition[] {
  cached ??= [
    tool(
      "team_send",
      'Send a message to another member of your team (by member name, or "lead"). The recipient handles it from its own mailbox and must answer with team_reply. Returns the message ids.',
      schema<{ to: string; content: string; threadId?: string; workspaceGrants?: unknown[] }>(
        {
          to: { type: "string", description: 'A member name of your team, or "lead".' },
          content: { type: "string", description: "The message: self-contained, with what you need back." },
          threadId: {
            type: "string",
            description: "Continue this thread (default: the thread you work in).",
          },
          workspaceGrants: {
            type: "array",
            description: "Shared directories the recipient may write to; must be within your own grants.",
            items: {
              type: "object",
              properties: {
                root: { type: "string" },
                access: { type: "array", items: { type: "string", enum: ["write"] } },
                reason: { type: "string" },
              },
              required: ["root", "access"],
            },
          },
        },
        ["to", "content"],
      ),
      (input, extra) => withContext(extra, context => send(context, input, extra)),
    ),
    tool(
      "team_inbox",
      "List messages in your own team mailbox (pending ones by default).",
      schema<{ status?: TeamMessageStatus | "all"; limit?: number }>({
        status: {
          type: "string",
          enum: ["pending", "processing", "completed", "failed", "cancelled", "all"],
        },
        limit: { type: "integer", minimum: 1 },
      }),
      (input, extra) =>
        withContext(extra, async context => {
          const messages = await context.team.mailbox.inbox(context.mailboxId, {
            status: input.status ?? "pending",
            limit: input.limit ?? 20,
          });
          return json({ mailbox: context.mailboxId, messages: messages.map(summary) });
        }),
    ),
    tool(
      "team_read",
      "Read one message in full: one addressed to you, sent by you, or in the thread you are working in.",
      schema<{ message_id: string }>({ message_id: { type: "string" } }, ["message_id"]),
      (input, extra) =>
        withContext(extra, async context => {
          const message = await context.team.mailbox.get(input.message_id);
          if (!message || !readable(context, message)) {
            return error(
              "team_message_not_found",
              `No message ${input.message_id} is visible to ${context.mailboxId}. Use team_inbox to list yours.`,
            );
          }
          return json(full(message));
        }),
    ),
    tool(
      "team_reply",
      "Answer the message you are working on with your final result. It is delivered upstream when your turn ends; after replying, finish your turn.",
      schema<{ content: string }>({ content: { type: "string" } }, ["content"]),
      (input, extra) =>
        withContext(extra, async context => {
          if (!context.current) {
            return error(
              "team_no_message",
              "team_reply answers the message you are processing, and you are not processing one. Use team_send to start a conversation.",
            );
          }
          if (context.reply !== undefined) {
            return error("team_already_replied", "You already replied to this message; end your turn.");
          }
          context.reply = input.content;
          return json({ status: "reply_recorded", message_id: context.current.id, to: context.current.from });
        }),
    ),
    tool(
      "team_followup",
      "Send progress or a question upstream about the message you are working on, without finishing it.",
      schema<{ content: string }>({ content: { type: "string" } }, ["content"]),
      (input, extra) =>
        withContext(extra, async context => {
          const current = context.current;
          if (!current) {
            return error(
              "team_no_message",
              "team_followup needs a message in progress; you are not processing one.",
            );
          }
          const message = await context.team.mailbox.send({
            from: context.mailboxId,
            to: current.from,
            kind: "followup",
            content: input.content,
            parentMessageId: current.id,
            threadId: current.threadId,
            workItemId: current.workItemId,
          });
          context.followups.push(message);
          await context.events.message("sent", message, context.emit);
          return json({ status: "sent", message_id: message.id, to: message.to });
        }),
    ),
    tool(
      "team_status",
      "Show the status of a message, of a thread (default: the one you work in), or of your team's mailboxes.",
      schema<{ message_id?: string; thread_id?: string }>({
        message_id: { type: "string" },
        thread_id: { type: "string" },
      }),
      (input, extra) => withContext(extra, context => status(context, input)),
    ),
  ];
  return cached;
}

async function send(
  context: MailboxToolContext,
  input: { to: string; content: string; threadId?: string; workspaceGrants?: unknown[] },
  extra: ToolHandlerExtra,
): Promise<ToolResult> {
  let to: string;
  try {
    to = context.team.resolveMailbox(input.to);
  } catch (failure) {
    return error("team_unknown_mailbox", (failure as Error).message);
  }
  if (to === context.mailboxId)
    return error("team_send_to_self", "You cannot send a message to your own mailbox.");
  const requested = (input.workspaceGrants ?? []) as Parameters<typeof acceptGrants>[0];
  const { accepted, rejected } = acceptGrants(requested, extra.permissions);
  if (rejected.length) {
    return error(
      "grant_not_covered",
      `You can only pass on write access you hold yourself: ${rejected.map(grant => grant.root).join(", ")} ${rejected.length === 1 ? "is" : "are"} not within your grants. Nothing was sent.`,
    );
  }
  const current = context.current;
  const message = await context.team.mailbox.send({
    from: context.mailboxId,
    to,
    kind: "message",
    content: input.content,
    ...(input.threadId ? { threadId: input.threadId } : current ? { threadId: current.threadId } : {}),
    ...(current ? { parentMessageId: current.id } : {}),
    metadata: accepted.length ? { workspaceGrants: accepted } : {},
  });
  context.sent.push(message);
  await context.events.message("sent", message, context.emit);
  return json({
    status: "pending",
    message_id: message.id,
    work_item_id: message.workItemId,
    thread_id: message.threadId,
    to,
    note: "The recipient handles it from its own mailbox when the team's work is drained.",
  });
}

async function status(
  context: MailboxToolContext,
  input: { message_id?: string; thread_id?: string },
): Promise<ToolResult> {
  const { mailbox } = context.team;
  if (input.message_id) {
    const message = await mailbox.get(input.message_id);
    if (!message || !readable(context, message))
      return error("team_message_not_found", `No message ${input.message_id} is visible to you.`);
    return json(summary(message));
  }
  const threadId = input.thread_id ?? context.current?.threadId;
  if (threadId) {
    const messages = await mailbox.thread(threadId);
    return json({ thread_id: threadId, messages: messages.map(summary) });
  }
  const mailboxes = [context.team.leadMailboxId, ...context.team.members.map(member => member.mailboxId)];
  const overview: Record<string, Record<string, number>> = {};
  for (const id of mailboxes) {
    const [pending, processing] = await Promise.all([
      mailbox.inbox(id, { status: "pending" }),
      mailbox.inbox(id, { status: "processing" }),
    ]);
    overview[id] = { pending: pending.length, processing: processing.length };
  }
  return json({ team: context.team.name, mailboxes: overview });
}

function readable(context: MailboxToolContext, message: TeamMessage): boolean {
  return (
    message.to === context.mailboxId ||
    message.from === context.mailboxId ||
    (context.current !== undefined && message.threadId === context.current.threadId)
  );
}

function summary(message: TeamMessage) {
  return {
    message_id: message.id,
    work_item_id: message.workItemId,
    thread_id: message.threadId,
    from: message.from,
    to: message.to,
    kind: message.kind,
    status: message.status,
    preview: message.content.length > 200 ? `${message.content.slice(0, 200)}…` : message.content,
    ...(TERMINAL_STATUSES.has(message.status) && message.outcome?.error
      ? { error: message.outcome.error }
      : {}),
  };
}

function full(message: TeamMessage) {
  return {
    ...summary(message),
    content: message.content,
    metadata: message.metadata,
    outcome: message.outcome,
  };
}

async function withContext(
  extra: ToolHandlerExtra,
  run: (context: MailboxToolContext) => Promise<ToolResult>,
): Promise<ToolResult> {
  const context = mailboxContextOf(extra.run.runtime);
  if (!context) {
    return error(
      "team_mailbox_unavailable",
      "Team mailbox tools work only while this agent runs as part of a team (team.query(), team.drain()).",
    );
  }
  return run(context);
}

function json(value: unknown): ToolResult {
  return { content: JSON.stringify(value) };
}

function error(code: string, message: string): ToolResult {
  return { isError: true, content: JSON.stringify({ code, message }) };
}

/** A hand-written object schema: parse() checks required strings and types, jsonSchema tells the model. */
function schema<T>(
  properties: Record<string, Record<string, unknown>>,
  required: string[] = [],
): JsonSchemaBacked<T> {
  return {
    jsonSchema: { type: "object", properties, required, additionalProperties: false },
    parse(input: unknown): T {
      if (!input || typeof input !== "object" || Array.isArray(input))
        throw new Error("input must be an object");
      const value = input as Record<string, unknown>;
      for (const key of Object.keys(value))
        if (!(key in properties)) throw new Error(`unknown field "${key}"`);
      for (const key of required) if (value[key] === undefined) throw new Error(`${key}: required`);
      for (const [key, spec] of Object.entries(properties)) {
        const field = value[key];
        if (field === undefined) continue;
        const type = spec.type;
        const ok =
          type === "string"
            ? typeof field === "string" && (!spec.enum || (spec.enum as unknown[]).includes(field))
            : type === "integer"
              ? Number.isInteger(field) &&
                (field as number) >= ((spec.minimum as number | undefined) ?? -Infinity)
              : type === "array"
                ? Array.isArray(field)
                : true;
        if (!ok)
          throw new Error(
            `${key}: expected ${spec.enum ? `one of ${(spec.enum as string[]).join(", ")}` : type}`,
          );
        if (key === "content" && (field as string).trim() === "")
          throw new Error("content: must not be empty");
      }
      return value as T;
    },
  };
}
