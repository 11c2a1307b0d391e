import type { Usage } from "@agent-lattice/core";
import { isRecord, str, type TraceEvent, timeOf } from "./trace-event.js";
import type { EventNode, NodeBase, RunNode, ToolNode } from "./trace-model.js";
import { addInto, type ErrorInfo, emptyUsage, usageOf } from "./values.js";

/**
 * Team runs as a tree. @agent-lattice/team traces one team invocation as a run (source: the team's name) holding
 * its mailbox events, with the lead's run under it (parent_run_id, no parent_tool_use_id). Every delegation is a
 * mailbox message whose metadata names the lead's tool call (`tool_use_id`, `mode`: handoff or ask), and which
 * the team's events follow: team_message sent → claimed → completed / failed / cancelled (or released, back to
 * pending), team_agent started / finished around each member run (member name, tokens). The member's run names
 * the same call as its parent_tool_use_id, with the team run (handoff) or the lead's run (ask) as its parent.
 *
 * Here each delegation becomes a member node — the work item as the lead sees it: who, status, how long, how
 * many tokens, why it failed — placed under the lead's call, with the member's runs under it. The member's reply
 * or follow-up message joins its node; team events that belong to no delegation stay rows of the team run.
 * Everything is read from the trace as data (no dependency on the team package): a field missing or malformed
 * leaves that part out, never the row.
 */

export interface MemberNode extends NodeBase {
  kind: "member";
  /** The team's name (its run's source). */
  team: string;
  /** The member's name (team_agent's `agent`, or the recipient mailbox without its team prefix). */
  member: string;
  /** The mailbox the message went to, e.g. "engineering::researcher". */
  mailbox: string | undefined;
  messageId: string;
  /** "handoff" (the lead goes on; the report arrives later) or "ask" (the lead waits), from the message metadata. */
  mode: string | undefined;
  /** The lead's tool call that made the delegation. */
  toolUseId: string | undefined;
  /** The message's status as last stored: pending, processing, completed, failed or cancelled. */
  status: string;
  /** The delegation message as last stored: its task (content), outcome, ids, attempts. */
  message: Record<string, unknown>;
  /** When the lead handed it off (the message was stored); start is when a member began on it. */
  sentAt: number;
  /** Member runs started on it (more than one after a worker released it, or a retry). */
  attempts: number;
  /** Tokens the member's runs spent, as the team reported them when each finished. */
  usage: Usage | undefined;
}

export interface TeamMembers {
  /** The member node a run was started for, when the run is a team member's work on a delegation. */
  memberOf(run: RunNode, parent: RunNode): MemberNode | undefined;
  /** Every member that was handed work, for the agent filter. */
  memberNames: Set<string>;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/**
 * Builds the member nodes of every run holding team events and places them; team events no member node takes
 * become rows through `eventRow`. Marks team, lead and (through memberOf) member runs and names them.
 */
export function buildTeamMembers(
  runs: Map<string, RunNode>,
  eventRow: (run: RunNode, event: TraceEvent) => EventNode,
): TeamMembers {
  const byCall = new Map<string, MemberNode[]>();
  const memberNames = new Set<string>();
  const leadsOf = new Map<string, RunNode[]>();
  for (const run of runs.values()) {
    if (run.parentRunId === undefined || run.parentToolUseId !== undefined) continue;
    const leads = leadsOf.get(run.parentRunId);
    if (leads) leads.push(run);
    else leadsOf.set(run.parentRunId, [run]);
  }

  for (const teamRun of runs.values()) {
    if (!teamRun.teamEvents.length) continue;
    teamRun.role = "team";
    const leads = leadsOf.get(teamRun.runId) ?? [];
    for (const lead of leads) {
      lead.role = "lead";
      lead.agent = `${teamRun.source} lead`;
    }
    const members = new Map<string, MemberNode>();
    const begun = new Set<MemberNode>();
    for (const event of teamRun.teamEvents) {
      if (!absorb(teamRun, members, begun, event)) teamRun.children.push(eventRow(teamRun, event));
    }
    for (const node of members.values()) {
      memberNames.add(node.member);
      const call = node.toolUseId === undefined ? undefined : callIn(leads, node.toolUseId);
      const container = call ?? teamRun;
      node.parent = container;
      container.children.push(node);
      if (node.toolUseId === undefined) continue;
      const key = callKey(teamRun.runId, node.toolUseId);
      const same = byCall.get(key);
      if (same) same.push(node);
      else byCall.set(key, [node]);
    }
  }

  return {
    memberNames,
    memberOf(run, parent) {
      const id = run.parentToolUseId;
      if (id === undefined) return undefined;
      // Handoff: the member's run hangs under the team run. Ask: under the lead's run, whose parent is the team run.
      const candidates =
        byCall.get(callKey(parent.runId, id)) ??
        (parent.role === "lead" && parent.parentRunId !== undefined
          ? byCall.get(callKey(parent.parentRunId, id))
          : undefined);
      if (!candidates) return undefined;
      // One call, several work items (rare): the latest begun by the time the run started.
      const node = candidates.filter(candidate => !(candidate.start > run.start)).at(-1) ?? candidates[0]!;
      run.role ??= "member";
      run.agent = node.member;
      return node;
    },
  };
}

function callKey(teamRunId: string, toolUseId: string): string {
  return `${teamRunId}\u0000${toolUseId}`;
}

function callIn(leads: RunNode[], toolUseId: string): ToolNode | undefined {
  for (const lead of leads) {
    const call = lead.tools.get(toolUseId);
    if (call) return call;
  }
  return undefined;
}

/** Takes a team event into its member node; false when it belongs to none (it stays a row of the team run). */
function absorb(
  teamRun: RunNode,
  members: Map<string, MemberNode>,
  begun: Set<MemberNode>,
  event: TraceEvent,
): boolean {
  const data = isRecord(event.data) ? event.data : undefined;
  if (!data) return false;
  const time = timeOf(event.time);
  const subtype = str(data.subtype);
  const begin = (node: MemberNode) => {
    if (begun.has(node)) return;
    begun.add(node);
    node.start = time;
  };

  if (event.type === "team_message") {
    const message = isRecord(data.message) ? data.message : undefined;
    const id = str(message?.id);
    if (!message || id === undefined) return false;
    if (message.kind !== "delegation") {
      // A reply or follow-up to a delegation (the member's report, a failure notice) belongs to it.
      const parent = members.get(str(message.parentMessageId) ?? "");
      if (!parent || (message.kind !== "reply" && message.kind !== "followup")) return false;
      parent.events.push(event);
      return true;
    }
    let node = members.get(id);
    if (!node) {
      node = newMember(teamRun, str(data.team) ?? teamRun.source, id, message, time);
      members.set(id, node);
    }
    node.events.push(event);
    node.message = message;
    node.status = str(message.status) ?? subtype ?? node.status;
    if (subtype === "claimed") begin(node);
    else if (subtype === "released")
      node.end = undefined; // pending again, for another worker
    else if (subtype !== undefined && TERMINAL.has(subtype)) {
      node.end = time;
      node.error = subtype === "failed" ? failure(node, message) : undefined;
    }
    return true;
  }

  if (event.type === "team_agent") {
    const node = members.get(str(data.message_id) ?? "");
    if (!node) return false;
    node.events.push(event);
    node.member = str(data.agent) ?? node.member;
    if (subtype === "started") {
      node.attempts++;
      begin(node);
    } else if (subtype === "finished") {
      if (isRecord(data.usage)) {
        node.usage ??= emptyUsage();
        addInto(node.usage, usageOf(data.usage));
      }
      node.end ??= time;
      const status = str(data.status);
      if (status !== undefined && TERMINAL.has(status)) node.status = status;
      if (status === "failed" && !node.error) node.error = failure(node, node.message);
    }
    return true;
  }
  return false;
}

function newMember(
  teamRun: RunNode,
  team: string,
  messageId: string,
  message: Record<string, unknown>,
  time: number,
): MemberNode {
  const metadata = isRecord(message.metadata) ? message.metadata : {};
  const mailbox = str(message.to);
  const prefix = `${team}::`;
  return {
    id: `member:${teamRun.runId}:${messageId}`,
    kind: "member",
    run: teamRun,
    parent: undefined,
    children: [],
    depth: 0,
    start: time,
    end: undefined,
    error: undefined,
    events: [],
    team,
    member: mailbox?.startsWith(prefix) ? mailbox.slice(prefix.length) : (mailbox ?? "member"),
    mailbox,
    messageId,
    mode: str(metadata.mode),
    toolUseId: str(metadata.tool_use_id),
    status: str(message.status) ?? "pending",
    message,
    sentAt: time,
    attempts: 0,
    usage: undefined,
  };
}

/** A failed work item as an error: the outcome's code and message ("handoff failed overloaded_error: …"). */
function failure(node: MemberNode, message: Record<string, unknown>): ErrorInfo {
  const outcome = isRecord(message.outcome) ? message.outcome : {};
  const error = isRecord(outcome.error) ? outcome.error : {};
  const info: ErrorInfo = { name: `${node.mode ?? "delegation"} failed` };
  const code = str(error.code);
  const text = str(error.message) ?? str(outcome.content);
  if (code !== undefined) info.code = code;
  if (text !== undefined) info.message = text;
  return info;
}
