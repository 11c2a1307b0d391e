// Remote execution: a lead whose runner has execution "remote" stores its work and waits while runTeamWorker()
// runs the members elsewhere (here: in the same process, over one memory mailbox; the PostgreSQL package runs the
// same shape across processes). Also the worker's graceful shutdown and its option checks.
import { type SDKMessage, tool } from "@agent-lattice/core";
import { serverError, textTurn, toolTurn, toolUse, turn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import {
  createMemoryMailbox,
  createTeam,
  runTeamWorker,
  type TeamMailbox,
  type TeamWorkerResult,
  teamMember,
} from "../src/index.js";
import { collect, lastUserText, mockAgent, requestsFor, teamMock } from "./helpers.js";

function startWorker(options: Parameters<typeof runTeamWorker>[0]) {
  const controller = new AbortController();
  const events: SDKMessage[] = [];
  const done: Promise<TeamWorkerResult> = runTeamWorker({
    signal: controller.signal,
    onEvent: event => {
      events.push(event);
    },
    ...options,
  });
  return { stop: () => controller.abort(), done, events, controller };
}

describe('runner execution "remote" with runTeamWorker()', () => {
  it("the lead hands off, a worker runs the members, reports come back in handoff order with the members' usage", async () => {
    const server = await teamMock({
      lead: [
        turn([
          toolUse("alpha", { mode: "handoff", task: "task A" }),
          toolUse("beta", { mode: "handoff", task: "task B" }),
        ]),
        request =>
          textTurn(`lead saw: ${lastUserText(request).includes("[team_report]") ? "reports" : "none"}`),
      ],
      alpha: [textTurn("alpha done A", { delayMs: 60 })],
      beta: [textTurn("beta done B")],
    });
    const mailbox = createMemoryMailbox();
    const members = () => [
      teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") }),
      teamMember({ name: "beta", role: "executor", agent: mockAgent(server, "beta") }),
    ];
    const lead = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: members(),
      mailbox,
      runner: { execution: "remote", leaseMs: 2_000 },
    });
    expect(lead.runner.execution).toBe("remote");
    // The worker side: the team's name and members, no lead.
    const worker = startWorker({ name: "eng", members: members(), mailbox, leaseMs: 2_000 });

    const events = await collect(lead.query("Hand off A and B."));
    const result = events.at(-1)!;
    expect(result).toMatchObject({ type: "result", subtype: "success", result: "lead saw: reports" });

    // The lead's second request carried both reports, in handoff order, after both members had run.
    const second = lastUserText(requestsFor(server, "lead")[1]!);
    expect(second.indexOf("alpha done A")).toBeGreaterThan(-1);
    expect(second.indexOf("alpha done A")).toBeLessThan(second.indexOf("beta done B"));
    expect(second).toMatch(/\[team_report\] \{"member":"alpha","status":"completed"/);
    // Members' tokens count in the team's usage although they ran in the worker.
    const leadOnly = requestsFor(server, "lead").length;
    expect(leadOnly).toBe(2);
    expect((result as { usage: { output_tokens: number } }).usage.output_tokens).toBeGreaterThan(0);

    // The lead streamed its own side: sent, then the settled states it observed; the worker streamed the members'.
    const leadEvents = events
      .filter(event => event.type === "team_message")
      .map(event => (event as any).subtype);
    expect(leadEvents).toEqual(["sent", "sent", "completed", "completed"]);
    expect(events.some(event => event.type === "team_agent")).toBe(false);
    expect(
      worker.events.filter(event => event.type === "team_agent").map(event => (event as any).agent),
    ).toEqual(expect.arrayContaining(["alpha", "beta"]));

    // Replies were acknowledged: nothing pending in the lead's mailbox.
    expect(await mailbox.inbox("eng::lead")).toEqual([]);
    expect(await mailbox.inbox("eng::lead", { status: "completed" })).toHaveLength(2);
    worker.stop();
    expect(await worker.done).toMatchObject({ processed: 2, completed: 2, released: 0 });
  });

  it("a member's failed tools reach the lead from a worker: in the report header", async () => {
    const broken = tool(
      "broken",
      "Always throws.",
      { jsonSchema: { type: "object", properties: {} }, parse: (input: unknown) => input as object },
      async () => {
        throw new Error("boom");
      },
    );
    const server = await teamMock({
      lead: [toolTurn({ name: "alpha", input: { mode: "handoff", task: "try" } }), textTurn("ok")],
      alpha: [toolTurn({ name: "broken", input: {} }), textTurn("it broke")],
    });
    const mailbox = createMemoryMailbox();
    const members = () => [
      teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha", { tools: [broken] }) }),
    ];
    const lead = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: members(),
      mailbox,
      runner: { execution: "remote" },
    });
    const worker = startWorker({ name: "eng", members: members(), mailbox });
    await collect(lead.query("Try."));
    expect(lastUserText(requestsFor(server, "lead")[1]!)).toMatch(
      /\[team_report\] \{"member":"alpha","status":"completed","tool_errors":\{"broken":1\}/,
    );
    worker.stop();
    await worker.done;
  });

  it("an ask waits for the worker's answer and returns it as the tool result", async () => {
    const server = await teamMock({
      lead: [
        toolTurn({ name: "alpha", input: { mode: "ask", task: "what is 6 x 7?" } }),
        request => textTurn(`heard: ${lastUserText(request)}`),
      ],
      alpha: [textTurn("42")],
    });
    const mailbox = createMemoryMailbox();
    const team = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") })],
      mailbox,
      runner: { execution: "remote" },
    });
    const worker = startWorker({ team });
    const result = await team.prompt("Ask alpha.");
    expect(result.result).toBe("heard: 42");
    worker.stop();
    expect((await worker.done).completed).toBe(1);
  });

  it("a failing member is reported as failed, with its diagnostic, and the others still report", async () => {
    const server = await teamMock({
      lead: [
        turn([
          toolUse("alpha", { mode: "handoff", task: "fail" }),
          toolUse("beta", { mode: "handoff", task: "ok" }),
        ]),
        textTurn("done"),
      ],
      alpha: [serverError()],
      beta: [textTurn("beta ok")],
    });
    const mailbox = createMemoryMailbox();
    const team = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: [
        teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") }),
        teamMember({ name: "beta", role: "executor", agent: mockAgent(server, "beta") }),
      ],
      mailbox,
      runner: { execution: "remote" },
    });
    const worker = startWorker({ team });
    await team.prompt("go");
    const second = lastUserText(requestsFor(server, "lead")[1]!);
    expect(second).toMatch(/\{"member":"alpha","status":"failed"/);
    expect(second).toMatch(/\{"member":"beta","status":"completed"/);
    worker.stop();
    expect(await worker.done).toMatchObject({ failed: 1, completed: 1 });
  });

  it("aborting the lead while no worker runs cancels the queued handoffs", async () => {
    const server = await teamMock({
      lead: [turn([toolUse("alpha", { mode: "handoff", task: "never run" })])],
    });
    const mailbox = createMemoryMailbox();
    const team = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") })],
      mailbox,
      runner: { execution: "remote" },
    });
    const controller = new AbortController();
    const events: SDKMessage[] = [];
    for await (const event of team.query("go", { signal: controller.signal })) {
      events.push(event);
      if (event.type === "team_message" && event.subtype === "sent") setTimeout(() => controller.abort(), 50);
    }
    expect(events.at(-1)).toMatchObject({ type: "result", subtype: "error_abort" });
    const [message] = await mailbox.inbox("eng::alpha", { status: "all" });
    expect(message).toMatchObject({ status: "cancelled" });
    expect(events.some(event => event.type === "team_message" && event.subtype === "cancelled")).toBe(true);
  });
});

describe("runTeamWorker()", () => {
  it("shuts down gracefully: running work finishes within the grace period", async () => {
    const server = await teamMock({ alpha: [textTurn("slow but done", { delayMs: 150 })] });
    const mailbox = createMemoryMailbox();
    const members = [teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") })];
    const sent = await mailbox.send({
      from: "eng::lead",
      to: "eng::alpha",
      kind: "delegation",
      content: "work",
    });
    const worker = startWorker({ name: "eng", members, mailbox, shutdownGraceMs: 10_000 });
    await waitFor(async () => (await mailbox.get(sent.id))?.status === "processing");
    worker.stop();
    expect(await worker.done).toMatchObject({ completed: 1, released: 0 });
    expect(await mailbox.get(sent.id)).toMatchObject({ status: "completed" });
  });

  it("after the grace period it releases the claim: pending again, and another worker completes it", async () => {
    const server = await teamMock({
      alpha: [textTurn("too slow", { delayMs: 2_000 }), textTurn("second worker done")],
    });
    const mailbox = createMemoryMailbox();
    const members = () => [
      teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") }),
    ];
    const sent = await mailbox.send({
      from: "eng::lead",
      to: "eng::alpha",
      kind: "delegation",
      content: "work",
    });
    const first = startWorker({
      name: "eng",
      members: members(),
      mailbox,
      shutdownGraceMs: 0,
      owner: "first",
    });
    await waitFor(async () => (await mailbox.get(sent.id))?.status === "processing");
    first.stop();
    expect(await first.done).toMatchObject({ released: 1, completed: 0 });
    expect(await mailbox.get(sent.id)).toMatchObject({ status: "pending" });
    expect(first.events.some(event => event.type === "team_message" && event.subtype === "released")).toBe(
      true,
    );

    const second = startWorker({ name: "eng", members: members(), mailbox, owner: "second" });
    await waitFor(async () => (await mailbox.get(sent.id))?.status === "completed");
    second.stop();
    expect(await second.done).toMatchObject({ completed: 1 });
    const log = await mailbox.transitions(sent.id);
    expect(log.map(entry => `${entry.to}${entry.owner ? `@${entry.owner}` : ""}`)).toEqual([
      "pending",
      "processing@first",
      "pending@first",
      "processing@second",
      "completed@second",
    ]);
    expect((await mailbox.inbox("eng::lead"))[0]).toMatchObject({
      kind: "reply",
      content: "second worker done",
    });
  });

  it("wakes on new work without polling (memory watch), and serves only the members it is told to", async () => {
    const server = await teamMock({ alpha: [textTurn("a1"), textTurn("a2")] });
    const mailbox = createMemoryMailbox();
    const members = [
      teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") }),
      teamMember({ name: "beta", role: "executor", agent: mockAgent(server, "beta") }),
    ];
    const worker = startWorker({ name: "eng", members, mailbox, serve: ["alpha"], leaseMs: 60_000 });
    await new Promise(resolve => setTimeout(resolve, 30));
    const forBeta = await mailbox.send({
      from: "eng::lead",
      to: "eng::beta",
      kind: "delegation",
      content: "b",
    });
    const one = await mailbox.send({ from: "eng::lead", to: "eng::alpha", kind: "delegation", content: "1" });
    const two = await mailbox.send({ from: "eng::lead", to: "eng::alpha", kind: "delegation", content: "2" });
    // The re-check interval is 1 s with this lease: finishing well before that means the watch woke the worker.
    const started = Date.now();
    await waitFor(async () => (await mailbox.get(two.id))?.status === "completed");
    expect(Date.now() - started).toBeLessThan(900);
    expect(await mailbox.get(one.id)).toMatchObject({ status: "completed" });
    expect(await mailbox.get(forBeta.id)).toMatchObject({ status: "pending" });
    worker.stop();
    expect((await worker.done).completed).toBe(2);
  });

  it("works with a host mailbox that has no watch() (polling fallback)", async () => {
    const server = await teamMock({ alpha: [textTurn("polled")] });
    const inner = createMemoryMailbox();
    const { watch: _watch, ...withoutWatch } = inner;
    const mailbox: TeamMailbox = withoutWatch;
    const worker = startWorker({
      name: "eng",
      members: [teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") })],
      mailbox,
    });
    await new Promise(resolve => setTimeout(resolve, 30));
    const sent = await mailbox.send({
      from: "eng::lead",
      to: "eng::alpha",
      kind: "delegation",
      content: "x",
    });
    await waitFor(async () => (await mailbox.get(sent.id))?.status === "completed");
    worker.stop();
    expect((await worker.done).completed).toBe(1);
  });

  it("rejects bad options with actionable messages", async () => {
    const mailbox = createMemoryMailbox();
    const server = await teamMock({});
    const members = [teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") })];
    await expect(runTeamWorker({ members, mailbox } as never)).rejects.toThrow(
      /name must be the team's name/,
    );
    await expect(runTeamWorker({ name: "eng", members })).rejects.toThrow(/pass the mailbox/);
    await expect(runTeamWorker({ name: "eng", members, mailbox, serve: ["nobody"] })).rejects.toThrow(
      /has no member "nobody"/,
    );
    await expect(runTeamWorker({ name: "eng", members, mailbox, leaseMs: 0 })).rejects.toThrow(/leaseMs/);
    await expect(runTeamWorker({ name: "eng", members, mailbox, shutdownGraceMs: -1 })).rejects.toThrow(
      /shutdownGraceMs/,
    );
    await expect(runTeamWorker({ team: {} as never })).rejects.toThrow(/made by createTeam/);
    await expect(runTeamWorker({ name: "eng", members, mailbox, extra: 1 } as never)).rejects.toThrow(
      /extra/,
    );
    expect(() =>
      createTeam({
        name: "eng",
        lead: mockAgent(server, "lead"),
        members: [],
        runner: { execution: "elsewhere" as never },
      }),
    ).toThrow(/execution must be "local"/);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("waitFor: condition not met in time");
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}
