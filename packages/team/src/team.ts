import { randomUUID } from "node:crypto";
import type {
  AgentLike,
  AgentSpec,
  PromptInput,
  QueryOptions,
  SDKMessage,
  SDKResultMessage,
  ToolDefinition,
  WorkspaceGrant,
} from "@agent-lattice/core";
import { agentTool, InvalidOptionError } from "@agent-lattice/core";
import {
  acceptGrants,
  assertKnownOptions,
  declaredOutputSchemaOf,
  isAgentSpec,
  resolveOutputContract,
} from "@agent-lattice/core/internal";
import { TeamError } from "./errors.js";
import { missingMailboxMethods, type TeamMailbox, type TeamMessage } from "./mailbox.js";
import { installMailboxTools, MAILBOX_TOOL_NAMES, mailboxTools } from "./mailbox-tools.js";
import { createMemoryMailbox } from "./memory-mailbox.js";
import type { ResolvedMember, TeamContext } from "./team-context.js";
import {
  isAgentLike,
  isToolCapable,
  LEAD_MAILBOX_NAME,
  type TeamMember,
  type TeamMemberOptions,
  teamMember,
} from "./team-member.js";
import {
  registerTeam,
  runnerFor,
  type TeamDrainOptions,
  type TeamDrainResult,
  type TeamRunner,
  type TeamRunnerOptions,
  validateRunnerOptions,
} from "./team-runner.js";

export interface TeamOptions {
  /** The team's name: its mailbox ids are `<name>::<member>` and `<name>::lead`; the source of its trace events. */
  name: string;
  /**
   * The agent you talk to; it coordinates the members. It receives one member tool per member (so it must accept
   * tools: an agent from createAgent()/createBareAgent()), or give a spec and the team spawns (and owns) a session.
   */
  lead: AgentLike<any, any> | AgentSpec<any>;
  members: Array<TeamMember | TeamMemberOptions>;
  /** Where the team's messages live. Default: createMemoryMailbox() (one process, not durable). */
  mailbox?: TeamMailbox;
  /** How the team's own runner drives the work (maxConcurrentWorkItems, leaseMs, observe). */
  runner?: TeamRunnerOptions;
  /** Also give the lead the team_* mailbox tools, to operate the mailbox by hand. Default false. */
  exposeLeadMailboxTools?: boolean;
}

/** A message as team.send() takes it: addresses are member names, "lead", or full mailbox ids of this team. */
export interface TeamSendInput {
  to: string;
  content: string;
  /** Default: the lead's mailbox (replies land there). */
  from?: string;
  threadId?: string;
  parentMessageId?: string;
  metadata?: Record<string, unknown>;
  /** Write grants for the recipient's task (the host is trusted: recorded as given, resolved to physical paths). */
  workspaceGrants?: WorkspaceGrant[];
}

export type TeamSendOptions = Omit<TeamSendInput, "from" | "to" | "content">;

const TEAM_KEYS: ReadonlySet<string> = new Set([
  "name",
  "lead",
  "members",
  "mailbox",
  "runner",
  "exposeLeadMailboxTools",
]);
const SEND_KEYS: ReadonlySet<string> = new Set([
  "to",
  "content",
  "from",
  "threadId",
  "parentMessageId",
  "metadata",
  "workspaceGrants",
]);
const TEAM_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * A team: one AgentLike on the outside (query / prompt / interrupt), a lead and named members with mailboxes on
 * the inside. Usable anywhere an agent is — including as another team's member (nested teams).
 *
 * Ownership: the lead and the members you pass in stay yours (close() does not close them); a lead the team spawned
 * from a spec is the team's and is closed with it. The mailbox you pass in is yours too.
 */
export class Team implements AgentLike<any>, AsyncDisposable {
  readonly name: string;
  /** The lead session (the one you passed, or the one spawned from your spec). */
  readonly lead: AgentLike<any, any>;
  readonly members: readonly TeamMember[];
  readonly mailbox: TeamMailbox;
  /** The runner behind query()/prompt()/drain(). */
  readonly runner: TeamRunner;
  /** The lead's mailbox id, `<name>::lead`: replies to work the lead (or the host) sent land here. */
  readonly leadMailboxId: string;
  /** The team's session id: its lead's, stamped on team events. */
  readonly sessionId: string;
  /** The member tools injected into the lead (plus the mailbox tools with exposeLeadMailboxTools). */
  readonly tools: readonly ToolDefinition[];
  /** Per member: the mailbox tools it received ([] for members that cannot take tools, such as nested teams). */
  readonly memberTools: Readonly<Record<string, readonly ToolDefinition[]>>;
  readonly #context: TeamContext;
  readonly #ownsLead: boolean;
  #closing: Promise<void> | undefined;

  /** @internal Use createTeam(). */
  constructor(options: TeamOptions) {
    validateTeamOptions(options);
    const name = options.name;
    const members = options.members.map(member => (isTeamMember(member) ? member : teamMember(member)));
    assertDistinctMembers(name, members, options.lead);
    const mailbox = options.mailbox ?? createMemoryMailbox();
    this.#ownsLead = isAgentSpec(options.lead);
    const lead = isAgentSpec(options.lead) ? options.lead.spawn() : options.lead;
    if (!isToolCapable(lead)) {
      throw new TeamError(
        "team_not_tool_capable",
        `createTeam("${name}"): the lead must accept the injected member tools — pass an agent from createAgent()/createBareAgent() (or a spec from defineAgent()); a ${describe(lead)} has no addTools().`,
      );
    }
    this.name = name;
    this.lead = lead;
    this.members = Object.freeze(members);
    this.mailbox = mailbox;
    this.leadMailboxId = `${name}::${LEAD_MAILBOX_NAME}`;
    const leadSession = (lead as { sessionId?: unknown }).sessionId;
    this.sessionId = typeof leadSession === "string" ? leadSession : randomUUID();

    // Assembly: every tool is built (and every contract cross-checked) before any agent is changed.
    const { resolved, memberTools } = resolveMembers(name, members);
    const leadTools: ToolDefinition[] = resolved.map(member => member.tool);
    try {
      lead.addTools(leadTools);
    } catch (error) {
      const clash = /named "([^"]+)"/.exec(String((error as Error)?.message))?.[1];
      throw new TeamError(
        "team_tool_conflict",
        `createTeam("${name}"): the lead already has a tool named "${clash ?? "?"}", and the team injects one tool per member, named after the member. Rename the member (teamMember({ name })) or the lead's tool — a lead also leads only one team.`,
        { cause: error },
      );
    }
    if (options.exposeLeadMailboxTools) {
      installMailboxTools(lead, `createTeam("${name}"): the lead (exposeLeadMailboxTools)`);
      leadTools.push(...mailboxTools());
    }
    this.tools = Object.freeze(leadTools);
    this.memberTools = Object.freeze(memberTools);

    this.#context = buildTeamContext(name, mailbox, resolved, this.sessionId);
    registerTeam(this, {
      context: this.#context,
      lead,
      leadModel: modelOf(lead),
    });
    this.runner = runnerFor(this, options.runner);
  }

  /** The mailbox id of a member (or "lead"), e.g. mailboxIdOf("researcher") → "engineering::researcher". */
  mailboxIdOf(member: string): string {
    return this.#context.resolveMailbox(member);
  }

  query(prompt: PromptInput, options?: QueryOptions<any>): AsyncGenerator<SDKMessage, void, undefined> {
    return this.runner.query(prompt, options);
  }

  prompt(prompt: PromptInput, options?: QueryOptions<any>): Promise<SDKResultMessage> {
    return this.runner.prompt(prompt, options);
  }

  /** Interrupts the lead (members it is waiting for are interrupted with it); false when idle. */
  interrupt(): boolean {
    return this.runner.interrupt();
  }

  /** Advances work already routed to member mailboxes; see TeamRunner.drain(). */
  drain(options?: TeamDrainOptions): Promise<TeamDrainResult> {
    return this.runner.drain(options);
  }

  /**
   * Stores a pending message for a member (explicit routing: it is handled only by that member, on the next
   * drain). Either send({ to, content, from?, … }) or send(from, to, content, options?).
   */
  send(message: TeamSendInput): Promise<TeamMessage>;
  send(from: string, to: string, content: string, options?: TeamSendOptions): Promise<TeamMessage>;
  async send(
    first: TeamSendInput | string,
    to?: string,
    content?: string,
    options: TeamSendOptions = {},
  ): Promise<TeamMessage> {
    const input: TeamSendInput =
      typeof first === "string"
        ? { ...options, from: first, to: to as string, content: content as string }
        : first;
    if (!input || typeof input !== "object") {
      throw new InvalidOptionError(
        'team.send(): expected { to, content } or (from, to, content), e.g. team.send({ to: "researcher", content: "…" }).',
      );
    }
    assertKnownOptions(input, SEND_KEYS, "team.send()");
    if (typeof input.content !== "string" || input.content.trim() === "") {
      throw new InvalidOptionError("team.send(): content must be a non-empty string.");
    }
    const toId = this.#context.resolveMailbox(input.to);
    if (toId === this.leadMailboxId) {
      throw new TeamError(
        "team_unknown_mailbox",
        `team.send(): send work to a member; the lead's mailbox (${toId}) receives replies. To talk to the lead, use team.query().`,
      );
    }
    const fromId = input.from === undefined ? this.leadMailboxId : this.#context.resolveMailbox(input.from);
    const requested = input.workspaceGrants ?? [];
    if (!Array.isArray(requested))
      throw new InvalidOptionError("team.send(): workspaceGrants must be an array.");
    // The host is the root of trust: its grants are taken as given, resolved to physical roots like every grant.
    const { accepted, rejected } = acceptGrants(requested, { workspaceGrants: requested });
    if (rejected.length) {
      throw new InvalidOptionError(
        `team.send(): workspace grant roots must be absolute paths; got ${rejected.map(grant => JSON.stringify(grant.root)).join(", ")}.`,
      );
    }
    return this.mailbox.send({
      from: fromId,
      to: toId,
      kind: "message",
      content: input.content,
      ...(input.threadId ? { threadId: input.threadId } : {}),
      ...(input.parentMessageId ? { parentMessageId: input.parentMessageId } : {}),
      metadata: { ...(input.metadata ?? {}), ...(accepted.length ? { workspaceGrants: accepted } : {}) },
    });
  }

  /**
   * Stops the team's runner (a running query or drain is aborted; its work cancelled) and closes a lead the team
   * spawned from a spec. Agents and mailboxes you passed in are yours and stay open. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.runner.close();
      if (this.#ownsLead) await (this.lead as { close?: () => Promise<void> }).close?.();
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Resolves a team's members: each gets its mailbox id, its member tool (for the lead) and its output contract, and
 * members that take tools receive the team_* mailbox tools. Contracts are cross-checked before any agent changes.
 */
export function resolveMembers(
  name: string,
  members: TeamMember[],
): { resolved: ResolvedMember[]; memberTools: Record<string, readonly ToolDefinition[]> } {
  const resolved: ResolvedMember[] = members.map(member => {
    const owner = `createTeam("${name}"): member "${member.name}"`;
    return {
      member,
      name: member.name,
      mailboxId: `${name}::${member.name}`,
      tool: agentTool(member.name, member.agent, { description: memberDescription(member) }),
      outputSchema: resolveOutputContract(owner, undefined, declaredOutputSchemaOf(member.agent)),
    };
  });
  for (const member of members) assertSpecToolsFree(name, member);
  const memberTools: Record<string, readonly ToolDefinition[]> = {};
  for (const member of members) {
    const installed =
      !isAgentSpec(member.agent) &&
      installMailboxTools(member.agent, `createTeam("${name}"): member "${member.name}"`);
    memberTools[member.name] = installed || isAgentSpec(member.agent) ? mailboxTools() : [];
  }
  return { resolved, memberTools };
}

/** What every part of the runtime knows about a team: its mailbox, members and address book. */
export function buildTeamContext(
  name: string,
  mailbox: TeamMailbox,
  resolved: ResolvedMember[],
  sessionId: string,
): TeamContext {
  const byName = new Map(resolved.map(member => [member.name, member]));
  const byMailbox = new Map(resolved.map(member => [member.mailboxId, member]));
  const leadMailboxId = `${name}::${LEAD_MAILBOX_NAME}`;
  return {
    name,
    mailbox,
    leadMailboxId,
    sessionId,
    members: resolved,
    memberByName: member => byName.get(member),
    memberByMailbox: id => byMailbox.get(id),
    resolveMailbox: address => {
      if (address === LEAD_MAILBOX_NAME || address === leadMailboxId) return leadMailboxId;
      const member = byName.get(address) ?? byMailbox.get(address);
      if (member) return member.mailboxId;
      throw new TeamError(
        "team_unknown_mailbox",
        `Team "${name}" has no mailbox "${address}". Routing is explicit: address "lead" or a member (${resolved.map(m => m.name).join(", ") || "none"}), or a full id such as "${resolved[0]?.mailboxId ?? leadMailboxId}".`,
      );
    },
  };
}

/** Creates a team; see TeamOptions. Fails at assembly on any bad option, tool-name clash or output-contract drift. */
export function createTeam(options: TeamOptions): Team {
  return new Team(options);
}

function validateTeamOptions(options: TeamOptions): void {
  if (!options || typeof options !== "object") {
    throw new InvalidOptionError(
      "createTeam(): expected { name, lead, members, mailbox?, runner?, exposeLeadMailboxTools? }.",
    );
  }
  assertKnownOptions(options, TEAM_KEYS, "createTeam()");
  if (typeof options.name !== "string" || !TEAM_NAME.test(options.name)) {
    throw new InvalidOptionError(
      `createTeam(): name must be 1–64 letters, digits, "_", "-" or "." (it prefixes the team's mailbox ids); got ${JSON.stringify(options.name)}.`,
    );
  }
  const label = `createTeam("${options.name}")`;
  if (!isAgentSpec(options.lead) && !isAgentLike(options.lead)) {
    throw new InvalidOptionError(
      `${label}: lead must be an agent (createAgent()) or a spec (defineAgent()).`,
    );
  }
  if (!Array.isArray(options.members)) {
    throw new InvalidOptionError(
      `${label}: members must be an array of teamMember({ name, role, agent }) (it may be empty).`,
    );
  }
  if (options.mailbox !== undefined) {
    const missing = missingMailboxMethods(options.mailbox);
    if (missing.length) {
      throw new InvalidOptionError(
        `${label}: mailbox must implement the TeamMailbox port (createMemoryMailbox(), createSQLiteMailbox(), or your own adapter); it lacks ${missing.join(", ")}.`,
      );
    }
  }
  validateRunnerOptions(options.runner, `${label}: runner`);
  if (options.exposeLeadMailboxTools !== undefined && typeof options.exposeLeadMailboxTools !== "boolean") {
    throw new InvalidOptionError(`${label}: exposeLeadMailboxTools must be true or false.`);
  }
}

export function isTeamMember(value: unknown): value is TeamMember {
  return !!value && typeof value === "object" && (value as TeamMember).kind === "team_member";
}

export function assertDistinctMembers(name: string, members: TeamMember[], lead: unknown): void {
  const seen = new Set<string>();
  for (const member of members) {
    if (seen.has(member.name)) {
      throw new InvalidOptionError(
        `createTeam("${name}"): two members are named "${member.name}"; member names must be unique.`,
      );
    }
    seen.add(member.name);
    if (member.agent === lead) {
      throw new InvalidOptionError(
        `createTeam("${name}"): member "${member.name}" is the lead itself. An agent runs one query at a time, so the lead cannot also be its own member; use a separate agent (or a spec).`,
      );
    }
  }
}

/** A spec member's sessions receive the mailbox tools when spawned; its own tools must leave those names free. */
function assertSpecToolsFree(name: string, member: TeamMember): void {
  if (!isAgentSpec(member.agent)) return;
  const clash = (member.agent.options.tools ?? []).find(tool =>
    (MAILBOX_TOOL_NAMES as readonly string[]).includes(tool.name),
  );
  if (clash) {
    throw new TeamError(
      "team_tool_conflict",
      `createTeam("${name}"): member "${member.name}" already has a tool named "${clash.name}", which the team's mailbox tools need. Rename that tool.`,
    );
  }
}

function memberDescription(member: TeamMember): string {
  const what = member.focus ? `${member.focus}.` : `The team's ${member.role}.`;
  return `Team member "${member.name}" (${member.role}). ${what} mode "ask" waits for its result; mode "handoff" queues the work and returns a receipt at once — the member's report arrives before your next turn, with every other handoff of the same turn, in handoff order.`;
}

function modelOf(lead: unknown): string | undefined {
  const model = (lead as { model?: unknown }).model;
  return typeof model === "string" ? model : undefined;
}

function describe(value: unknown): string {
  if (value instanceof Team) return "team";
  const ctor = (value as { constructor?: { name?: string } })?.constructor?.name;
  return ctor && ctor !== "Object" ? ctor : "host AgentLike";
}
