import type { Usage } from "@agent-lattice/core";
import { rollUp } from "./roll-up.js";
import { buildTeamMembers, type MemberNode } from "./team-members.js";
import { contentText, dataOf, isRecord, num, str, type TraceEvent, timeOf } from "./trace-event.js";
import { addInto, type ErrorInfo, emptyUsage, errorInfo, usageOf } from "./values.js";

export type { MemberNode } from "./team-members.js";
export type { ErrorInfo } from "./values.js";
export { emptyUsage } from "./values.js";

/**
 * The run tree built from trace events: a run per run_id (one query, or one team invocation), its model turns
 * (model_request → assistant_message), each turn's tool calls (tool_use → tool_result), and the runs those calls
 * started (delegated agents, team members) nested by parent_run_id / parent_tool_use_id. A team's own events
 * (team_message, team_agent) become member nodes, one per work item, under the lead's call that handed it off, with
 * the member's runs under them (team-members.ts). Events of types the viewer does not know (a newer SDK's) become
 * generic rows of their run, so they show up without code changes. Built again from all events on every live update: it is a linear pass (a few ms at 10,000 events).
 */

export type NodeKind = "run" | "turn" | "tool" | "member" | "event";

/**
 * A run's part in a team (see team-members.ts): the team invocation itself, its lead's run, or a member's run on a
 * work item. undefined for a plain agent run (and for a delegated child, which agentTool starts).
 */
export type RunRole = "team" | "lead" | "member";

export interface NodeBase {
  /** Stable across rebuilds, so selection and collapsed state survive live updates. */
  id: string;
  kind: NodeKind;
  /** The run this node belongs to (a run node's own run is itself). */
  run: RunNode;
  parent: TreeNode | undefined;
  children: TreeNode[];
  depth: number;
  /** Milliseconds since the epoch; NaN when the trace does not say. */
  start: number;
  /** undefined while the node is still open (a turn awaiting its response, a running tool or run). */
  end: number | undefined;
  error: ErrorInfo | undefined;
  /** The events this node was made of, in seq order. */
  events: TraceEvent[];
  /** Lower-cased text the text filter searches, computed on first search. */
  searchText?: string;
}

export interface RunNode extends NodeBase {
  kind: "run";
  runId: string;
  source: string;
  /**
   * Who ran it, as the agent filter and the labels name it: the source, except in a team, where agents are
   * usually unnamed ("agent") and the team knows who is who: a member's run is named after the member, a lead's
   * run "<team> lead".
   */
  agent: string;
  role: RunRole | undefined;
  /** The run's team_message / team_agent events (a team run's), which become member nodes. */
  teamEvents: TraceEvent[];
  sessionId: string;
  parentRunId: string | undefined;
  parentToolUseId: string | undefined;
  /** The parent run named by parent_run_id is not in the loaded files. */
  orphan: boolean;
  startEvent: TraceEvent | undefined;
  prompt: TraceEvent | undefined;
  result: TraceEvent | undefined;
  turns: Map<number, TurnNode>;
  tools: Map<string, ToolNode>;
  /** Tokens of this run's own turns. */
  usage: Usage;
  /**
   * Tokens of this run and everything below it: delegated runs and, for a team or its lead, the members' work
   * (roll-up.ts). What the run's row shows.
   */
  totalUsage: Usage;
}

export interface TurnNode extends NodeBase {
  kind: "turn";
  turn: number;
  request: TraceEvent | undefined;
  response: TraceEvent | undefined;
  usage: Usage | undefined;
}

export interface ToolNode extends NodeBase {
  kind: "tool";
  toolUseId: string;
  name: string;
  /** "tool", "agent_tool" (delegation), "submit_output", … from the result; undefined until it ends. */
  toolKind: string | undefined;
  use: TraceEvent | undefined;
  result: TraceEvent | undefined;
}

export interface EventNode extends NodeBase {
  kind: "event";
  event: TraceEvent;
  type: string;
}

export type TreeNode = RunNode | TurnNode | ToolNode | MemberNode | EventNode;

export interface TraceTotals extends Usage {
  runs: number;
  turns: number;
  toolCalls: number;
  /** Failures, each counted once where it arose (not once per row it marks: see roll-up.ts). */
  errors: number;
  events: number;
}

export interface TraceModel {
  roots: RunNode[];
  nodes: Map<string, TreeNode>;
  totals: TraceTotals;
  /** Earliest and latest time in the trace (ms); equal, or NaN, when it has fewer than two timed events. */
  start: number;
  end: number;
  /** Agent (and team) names as RunNode.agent gives them, and team members', sorted. */
  sources: string[];
  /** Event types present that render as generic rows (compaction, team_message, …), sorted. */
  eventTypes: string[];
}

// Node factories: plain literals (one shape per kind, no spreading), since a live page rebuilds the model on
// every update.
function newRun(event: TraceEvent): RunNode {
  const run: RunNode = {
    id: `run:${event.run_id}`,
    kind: "run",
    run: undefined as unknown as RunNode,
    parent: undefined,
    children: [],
    depth: 0,
    start: Number.NaN,
    end: undefined,
    error: undefined,
    events: [],
    runId: event.run_id,
    source: str(event.source) ?? "agent",
    agent: str(event.source) ?? "agent",
    role: undefined,
    teamEvents: [],
    sessionId: str(event.session_id) ?? "",
    parentRunId: str(event.parent_run_id),
    parentToolUseId: str(event.parent_tool_use_id),
    orphan: false,
    startEvent: undefined,
    prompt: undefined,
    result: undefined,
    turns: new Map(),
    tools: new Map(),
    usage: emptyUsage(),
    totalUsage: emptyUsage(),
  };
  run.run = run;
  return run;
}

function newTurn(run: RunNode, turn: number, start: number): TurnNode {
  return {
    id: `turn:${run.runId}:${turn}`,
    kind: "turn",
    run,
    parent: undefined,
    children: [],
    depth: 0,
    start,
    end: undefined,
    error: undefined,
    events: [],
    turn,
    request: undefined,
    response: undefined,
    usage: undefined,
  };
}

function newTool(run: RunNode, toolUseId: string, name: string, start: number): ToolNode {
  return {
    id: `tool:${run.runId}:${toolUseId}`,
    kind: "tool",
    run,
    parent: undefined,
    children: [],
    depth: 0,
    start,
    end: undefined,
    error: undefined,
    events: [],
    toolUseId,
    name,
    toolKind: undefined,
    use: undefined,
    result: undefined,
  };
}

function newEventNode(run: RunNode, event: TraceEvent, time: number): EventNode {
  return {
    id: `event:${run.runId}:${event.seq}`,
    kind: "event",
    run,
    parent: undefined,
    children: [],
    depth: 0,
    start: time,
    end: time,
    error: undefined,
    events: [event],
    event,
    type: event.type,
  };
}

/** Builds the run tree. Duplicate events (same run_id and seq, e.g. a file given twice) count once. */
export function buildTraceModel(events: readonly TraceEvent[]): TraceModel {
  const runs = new Map<string, RunNode>();
  for (const event of events) {
    let run = runs.get(event.run_id);
    if (!run) {
      run = newRun(event);
      runs.set(event.run_id, run);
    }
    run.events.push(event);
  }

  const nodes = new Map<string, TreeNode>();
  const totals: TraceTotals = { ...emptyUsage(), runs: 0, turns: 0, toolCalls: 0, errors: 0, events: 0 };
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  const sources = new Set<string>();
  const eventTypes = new Set<string>();

  for (const run of runs.values()) {
    run.events.sort((a, b) => a.seq - b.seq || timeOf(a.time) - timeOf(b.time));
    dropDuplicates(run.events);
    const [first, last] = buildRun(run, eventTypes);
    if (first < start) start = first;
    if (last > end) end = last;
    totals.runs++;
    totals.events += run.events.length;
  }

  // Team runs: their work items as member nodes under the lead's handoff calls (or the team run).
  const team = buildTeamMembers(runs, (run, event) => {
    const row = newEventNode(run, event, timeOf(event.time));
    if (isRecord(event.data) && isRecord(event.data.error)) row.error = errorInfo(event.data.error);
    eventTypes.add(event.type);
    return row;
  });

  // Nest runs under the member node, call (or run) that started them. A parent chain that loops back (only a
  // corrupt or hostile file can do that) is cut where it closes, so every run is reachable exactly once.
  const roots: RunNode[] = [];
  for (const run of runs.values()) {
    const parent = run.parentRunId === undefined ? undefined : runs.get(run.parentRunId);
    if (!parent || closesLoop(run, runs)) {
      run.orphan = run.parentRunId !== undefined;
      roots.push(run);
      continue;
    }
    const member = team.memberOf(run, parent);
    const call = run.parentToolUseId === undefined ? undefined : parent.tools.get(run.parentToolUseId);
    const container: TreeNode = member ?? call ?? parent;
    container.children.push(run);
    run.parent = container;
  }
  for (const run of runs.values()) sources.add(run.agent);
  for (const name of team.memberNames) sources.add(name);

  const byStart = (a: TreeNode, b: TreeNode) =>
    (Number.isFinite(a.start) ? a.start : Number.POSITIVE_INFINITY) -
      (Number.isFinite(b.start) ? b.start : Number.POSITIVE_INFINITY) ||
    (a.events[0]?.seq ?? 0) - (b.events[0]?.seq ?? 0);
  roots.sort(byStart);

  const stack: TreeNode[] = [...roots].reverse();
  const preorder: TreeNode[] = [];
  while (stack.length) {
    const node = stack.pop()!;
    node.depth = node.parent ? node.parent.depth + 1 : 0;
    nodes.set(node.id, node);
    preorder.push(node);
    if (node.kind === "run" || node.kind === "tool" || node.kind === "member") node.children.sort(byStart);
    if (node.kind === "turn") {
      totals.turns++;
      if (node.usage) addInto(totals, node.usage);
    }
    if (node.kind === "tool") totals.toolCalls++;
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]!;
      child.parent = node;
      stack.push(child);
    }
  }

  // Tokens rolled up into runs (members into their team and lead), and each failure counted once.
  totals.errors = rollUp(preorder).errors;

  return {
    roots,
    nodes,
    totals,
    start: Number.isFinite(start) ? start : Number.NaN,
    end: Number.isFinite(end) ? end : Number.NaN,
    sources: [...sources].sort(),
    eventTypes: [...eventTypes].sort(),
  };
}

/** Sorted by seq: a repeated seq is the same event read twice. */
function dropDuplicates(events: TraceEvent[]): void {
  let kept = 0;
  for (let i = 0; i < events.length; i++) {
    if (kept > 0 && events[kept - 1]!.seq === events[i]!.seq) continue;
    events[kept++] = events[i]!;
  }
  events.length = kept;
}

function closesLoop(run: RunNode, runs: Map<string, RunNode>): boolean {
  const visited = new Set<string>([run.runId]);
  let parentId = run.parentRunId;
  while (parentId !== undefined) {
    if (visited.has(parentId)) return true;
    visited.add(parentId);
    parentId = runs.get(parentId)?.parentRunId;
  }
  return false;
}

/**
 * One run's own rows: turns with their tool calls, errors, compactions and generic events. Returns the run's
 * earliest and latest event time (±Infinity when none is valid).
 */
function buildRun(run: RunNode, eventTypes: Set<string>): [number, number] {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let latestTurn: TurnNode | undefined;
  const turnOf = (number: number | undefined, time: number): TurnNode => {
    const key = number ?? latestTurn?.turn ?? 0;
    let turn = run.turns.get(key);
    if (!turn) {
      turn = newTurn(run, key, time);
      run.turns.set(key, turn);
      run.children.push(turn);
    }
    if (!latestTurn || key >= latestTurn.turn) latestTurn = turn;
    return turn;
  };
  const toolOf = (id: string, name: string | undefined, time: number): ToolNode => {
    let call = run.tools.get(id);
    if (!call) {
      call = newTool(run, id, name ?? "tool", time);
      run.tools.set(id, call);
    }
    return call;
  };
  const turnErrors: Array<[number | undefined, ErrorInfo]> = [];
  let fatal: ErrorInfo | undefined;

  for (const event of run.events) {
    const time = timeOf(event.time);
    if (time < first) first = time;
    if (time > last) last = time;
    switch (event.type) {
      case "run_start":
        run.startEvent ??= event;
        continue;
      case "team_message":
      case "team_agent":
        run.teamEvents.push(event); // member nodes, built once every run is (they attach to the lead's calls)
        continue;
      case "user_message": {
        if (!run.prompt && dataOf(event, "user_message")?.origin !== "runtime") {
          run.prompt = event;
          continue;
        }
        break; // input a runtime admitted between turns (team handoff reports): a row of its own
      }
      case "model_request": {
        const data = dataOf(event, "model_request");
        const turn = turnOf(num(data?.turn), time);
        turn.request ??= event;
        turn.events.push(event);
        continue;
      }
      case "assistant_message": {
        const data = dataOf(event, "assistant_message");
        const turn = turnOf(num(data?.turn), time);
        turn.response = event;
        turn.usage = usageOf(data?.usage);
        turn.events.push(event);
        addInto(run.usage, turn.usage);
        continue;
      }
      case "tool_use": {
        const data = dataOf(event, "tool_use");
        const id = str(data?.id);
        if (id === undefined) break;
        const call = toolOf(id, str(data?.name), time);
        call.use ??= event;
        call.events.push(event);
        if (!call.parent) attachCall(call, turnOf(turnNumber(run, data?.turn), time));
        continue;
      }
      case "tool_result": {
        const data = dataOf(event, "tool_result");
        const id = str(data?.tool_use_id);
        if (id === undefined) break;
        const call = toolOf(id, str(data?.name), time);
        call.result = event;
        call.toolKind = str(data?.kind);
        call.events.push(event);
        if (data?.is_error === true)
          call.error = { name: "tool error", message: firstLine(contentText(data.content)) };
        if (!call.parent) attachCall(call, turnOf(turnNumber(run, data?.turn), time));
        continue;
      }
      case "result": {
        run.result = event;
        const data = dataOf(event, "result");
        if (data?.is_error === true) {
          const info = errorInfo(data.error);
          info.code ??= str(data.subtype);
          info.message ??= str(data.result);
          run.error = info;
        }
        continue;
      }
      case "error": {
        const data = dataOf(event, "error");
        const info = errorInfo(data?.error);
        if (data?.fatal === true) fatal = info;
        // A model call that failed; older cores name the phase, newer ones only the turn (an error after the
        // response, e.g. in a tool, leaves the turn alone: only a turn without a response takes it).
        if (data?.during === "model_request" || (data?.during === undefined && num(data?.turn) !== undefined))
          turnErrors.push([num(data?.turn), info]);
        break;
      }
    }
    // Everything else is a row of the run at its time: errors, compactions, runtime input, unknown types.
    const row = newEventNode(run, event, time);
    if (event.type === "error") row.error = errorInfo(dataOf(event, "error")?.error);
    else if (isRecord(event.data) && isRecord(event.data.error)) row.error = errorInfo(event.data.error);
    if (event.type !== "error") eventTypes.add(event.type);
    run.children.push(row);
  }

  // A turn whose request failed carries the error too, so the failed turn itself is highlighted.
  for (const [number, info] of turnErrors) {
    const turn = number === undefined ? undefined : run.turns.get(number);
    if (turn && !turn.response) turn.error = info;
  }
  if (!run.error && fatal) run.error = fatal;
  setTimes(run);
  return [first, last];
}

function turnNumber(run: RunNode, value: unknown): number | undefined {
  const number = num(value);
  // Version-0 files have no turn on tool calls (upgraded to 0): they belong to the latest turn.
  return number !== undefined && run.turns.has(number) ? number : undefined;
}

function attachCall(call: ToolNode, turn: TurnNode): void {
  call.parent = turn;
  turn.children.push(call);
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function setTimes(run: RunNode): void {
  const first = run.events[0];
  const last = run.events.at(-1);
  run.start = timeOf((run.startEvent ?? first)?.time);
  run.end = run.result ? timeOf(run.result.time) : undefined;
  if (run.end === undefined && run.error) run.end = timeOf(last?.time); // died without a result
  for (const turn of run.turns.values()) {
    const response = dataOf(turn.response, "assistant_message");
    const started = timeOf(response?.started_at);
    turn.start = Number.isFinite(started) ? started : timeOf(turn.request?.time ?? turn.events[0]?.time);
    if (turn.response) turn.end = timeOf(turn.response.time);
    else if (turn.error || run.end !== undefined) turn.end = timeOf(last?.time);
  }
  for (const call of run.tools.values()) {
    const result = dataOf(call.result, "tool_result");
    const started = timeOf(result?.started_at);
    call.start = Number.isFinite(started) ? started : timeOf(call.use?.time ?? call.events[0]?.time);
    if (call.result) {
      const ended = timeOf(result?.ended_at);
      call.end = Number.isFinite(ended) ? ended : timeOf(call.result.time);
    } else if (run.end !== undefined) {
      call.end = run.end; // the run ended without this call's result (aborted)
    }
  }
}

/** Duration in ms as recorded (duration_ms) where the trace has it, else from the times; for an open node, up to `now`. */
export function durationOf(node: TreeNode, now: number): number | undefined {
  const recorded =
    node.kind === "turn"
      ? num(dataOf(node.response, "assistant_message")?.duration_ms)
      : node.kind === "tool"
        ? num(dataOf(node.result, "tool_result")?.duration_ms)
        : node.kind === "run"
          ? num(dataOf(node.result, "result")?.duration_ms)
          : undefined; // a member node: from its team events' times (start to finish of the member's work)
  if (recorded !== undefined && recorded > 0) return recorded;
  if (!Number.isFinite(node.start)) return undefined;
  const end = node.end ?? now;
  return Number.isFinite(end) ? Math.max(0, end - node.start) : undefined;
}

/** The agent a row belongs to, for the agent filter: a member node is its member's; any other row its run's. */
export function agentOf(node: TreeNode): string {
  return node.kind === "member" ? node.member : node.run.agent;
}
