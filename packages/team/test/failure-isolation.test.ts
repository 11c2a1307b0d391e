// T4 (failure isolation, abort) and T5 (bounded concurrency, serial mailboxes, handoff order).
import { tool } from "@agent-lattice/core";
import { serverError, textTurn, toolTurn, toolUse, turn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { createTeam, teamMember } from "../src/index.js";
import { collect, lastUserText, mockAgent, requestsFor, shape, teamMock } from "./helpers.js";

const noop = tool(
  "noop",
  "Does nothing.",
  { jsonSchema: { type: "object", properties: {} }, parse: (input: unknown) => input as object },
  async () => ({ content: "ok" }),
);

const handoff = (name: string, task: string) => toolUse(name, { mode: "handoff", task });

describe("work-item failure isolation (T4)", () => {
  it("MaxTurnsError and APIError fail only their own items; the lead gets all three reports in handoff order", async () => {
    const server = await teamMock({
      lead: [
        turn([handoff("looper", "loop"), handoff("flaky", "call the API"), handoff("steady", "answer")]),
        textTurn("Two failed, one succeeded; I will retry later."),
      ],
      looper: [toolTurn({ name: "noop", input: {} })],
      flaky: [serverError(), serverError()],
      steady: [textTurn("steady answer")],
    });
    const team = createTeam({
      name: "ops",
      lead: mockAgent(server, "lead"),
      members: [
        teamMember({
          name: "looper",
          role: "executor",
          agent: mockAgent(server, "looper", { maxTurns: 1, tools: [noop] }),
        }),
        // The built-in client retries a 500 once (maxRetries: 1), then reports the APIError.
        teamMember({ name: "flaky", role: "executor", agent: mockAgent(server, "flaky", { maxRetries: 1 }) }),
        teamMember({ name: "steady", role: "executor", agent: mockAgent(server, "steady") }),
      ],
    });
    const events = await collect(team.query("Run the three tasks."));
    expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success" });
    expect(requestsFor(server, "flaky")).toHaveLength(2);

    const reports = lastUserText(requestsFor(server, "lead")[1]!)
      .split("[team_report] ")
      .slice(1)
      .map(chunk => ({
        header: JSON.parse(chunk.slice(0, chunk.indexOf("\n"))),
        body: chunk.slice(chunk.indexOf("\n") + 1),
      }));
    expect(reports.map(report => [report.header.member, report.header.status])).toEqual([
      ["looper", "failed"],
      ["flaky", "failed"],
      ["steady", "completed"],
    ]);
    expect(reports[0]!.body).toMatch(/error_max_turns.*MaxTurnsError/);
    expect(reports[1]!.body).toMatch(/error_during_execution.*APIError/);
    expect(reports[2]!.body.trim()).toBe("steady answer");

    // The mailbox records each outcome; failures carry their error code and a diagnostic follow-up upstream.
    const statuses = events
      .filter(
        event =>
          event.type === "team_message" &&
          event.message.kind === "delegation" &&
          event.subtype !== "sent" &&
          event.subtype !== "claimed",
      )
      .map(
        event =>
          event.type === "team_message" && [
            event.message.to,
            event.subtype,
            event.message.outcome?.error?.code,
          ],
      );
    expect(statuses).toEqual([
      ["ops::looper", "failed", "max_turns"],
      ["ops::flaky", "failed", "server_error"],
      ["ops::steady", "completed", undefined],
    ]);
    const upstream = await team.mailbox.inbox(team.leadMailboxId, { status: "all" });
    expect(upstream.map(message => [message.kind, message.status])).toEqual([
      ["followup", "completed"],
      ["followup", "completed"],
      ["reply", "completed"],
    ]);
    expect(upstream[0]!.metadata).toMatchObject({ diagnostic: true, error: { code: "max_turns" } });
  });

  it("a member whose only tool threw completes, and the lead, the report and the events say its tool failed", async () => {
    const fetchPage = tool(
      "fetch_page",
      "Fetches a page.",
      { jsonSchema: { type: "object", properties: {} }, parse: (input: unknown) => input as object },
      async () => {
        throw new Error("ECONNREFUSED");
      },
    );
    const server = await teamMock({
      lead: [
        turn([handoff("reader", "read the page"), toolUse("asker", { mode: "ask", task: "read it too" })]),
        textTurn("Noted: the reader could not fetch the page."),
      ],
      reader: [toolTurn({ name: "fetch_page", input: {} }), textTurn("I could not read the page.")],
      asker: [toolTurn({ name: "fetch_page", input: {} }), textTurn("Nothing to read.")],
    });
    const member = (name: string) =>
      teamMember({ name, role: "executor", agent: mockAgent(server, name, { tools: [fetchPage] }) });
    const team = createTeam({
      name: "ops",
      lead: mockAgent(server, "lead"),
      members: [member("reader"), member("asker")],
    });
    const events = await collect(team.query("Read the page."));
    expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success" });

    // The host sees it on the member's finished event, beside its status.
    const finished = events.filter(event => event.type === "team_agent" && event.subtype === "finished");
    expect(
      finished.map(event => event.type === "team_agent" && [event.agent, event.status, event.tool_errors]),
    ).toEqual(
      expect.arrayContaining([
        ["reader", "completed", { fetch_page: 1 }],
        ["asker", "completed", { fetch_page: 1 }],
      ]),
    );
    // The lead reads it in the ask's answer and in the handoff's report header.
    const told = lastUserText(requestsFor(server, "lead")[1]!);
    expect(told).toContain('Nothing to read.\n[team_tool_errors] {"fetch_page":1}');
    expect(told).toContain(
      '[team_report] {"member":"reader","status":"completed","tool_errors":{"fetch_page":1},',
    );
  });

  it("an abort mid-run cancels the running item and every queued one, then the abort propagates", async () => {
    const controller = new AbortController();
    const server = await teamMock({
      lead: [turn([handoff("first", "a"), handoff("second", "b"), handoff("third", "c")])],
      first: [
        () => {
          setTimeout(() => controller.abort(), 30);
          return textTurn("too late", { delayMs: 5_000 });
        },
      ],
    });
    const team = createTeam({
      name: "ops",
      lead: mockAgent(server, "lead"),
      members: ["first", "second", "third"].map(name =>
        teamMember({ name, role: "executor", agent: mockAgent(server, name) }),
      ),
    });
    const events = await collect(team.query("Go.", { signal: controller.signal }));
    const result = events.at(-1)!;
    expect(result).toMatchObject({ type: "result", subtype: "error_abort", is_error: true });
    expect(result.type === "result" && result.error?.code).toBe("aborted");
    expect(requestsFor(server, "second")).toHaveLength(0);
    expect(requestsFor(server, "third")).toHaveLength(0);
    const cancelled = events.filter(event => event.type === "team_message" && event.subtype === "cancelled");
    // The queued ones are cancelled at once, the running one as soon as its run has stopped.
    expect(cancelled.map(event => event.type === "team_message" && event.message.to).sort()).toEqual([
      "ops::first",
      "ops::second",
      "ops::third",
    ]);
    for (const member of ["first", "second", "third"]) {
      const [message] = await team.mailbox.inbox(`ops::${member}`, { status: "all" });
      expect(message).toMatchObject({ status: "cancelled", outcome: { error: { code: "aborted" } } });
    }
    // Nothing was left running or pending, and the lead only ever made its first request.
    expect(requestsFor(server, "lead")).toHaveLength(1);
  });

  it("interrupt() goes to the lead: the running member is interrupted, queued work cancelled, the run ends interrupted", async () => {
    const server = await teamMock({
      lead: [turn([handoff("first", "a"), handoff("second", "b")])],
      first: [textTurn("slow", { delayMs: 5_000 })],
    });
    const team = createTeam({
      name: "ops",
      lead: mockAgent(server, "lead"),
      members: ["first", "second"].map(name =>
        teamMember({ name, role: "executor", agent: mockAgent(server, name) }),
      ),
    });
    expect(team.interrupt()).toBe(false);
    const events: string[] = [];
    let interrupted: boolean | undefined;
    for await (const event of team.query("Go.")) {
      events.push(event.type === "team_agent" ? `${event.subtype}:${event.agent}` : event.type);
      if (event.type === "team_agent" && event.subtype === "started")
        setTimeout(() => (interrupted = team.interrupt()), 20);
      if (event.type === "result") expect(event).toMatchObject({ subtype: "interrupted", is_error: false });
    }
    expect(interrupted).toBe(true);
    expect(events.at(-1)).toBe("result");
    expect((await team.mailbox.inbox("ops::first", { status: "all" }))[0]!.status).toBe("cancelled");
    expect((await team.mailbox.inbox("ops::second", { status: "all" }))[0]!.status).toBe("cancelled");
    expect(requestsFor(server, "second")).toHaveLength(0);
  });
});

describe("bounded concurrency (T5)", () => {
  it("maxConcurrentWorkItems 4: six handoffs to four members run ≤4 at once, never two for one member, reports in handoff order", async () => {
    let inflight = 0;
    let maxInflight = 0;
    const perMember = new Map<string, number>();
    let selfOverlap = false;
    const order: string[] = [];
    const slow = (model: string, delay: number) => async () => {
      inflight += 1;
      maxInflight = Math.max(maxInflight, inflight);
      const mine = (perMember.get(model) ?? 0) + 1;
      perMember.set(model, mine);
      if (mine > 1) selfOverlap = true;
      await new Promise(resolve => setTimeout(resolve, delay));
      inflight -= 1;
      perMember.set(model, (perMember.get(model) ?? 1) - 1);
      order.push(model);
      return textTurn(`${model} done after ${delay}ms`);
    };
    const server = await teamMock({
      lead: [
        turn([
          handoff("m1", "t1"),
          handoff("m2", "t2"),
          handoff("m1", "t3"),
          handoff("m3", "t4"),
          handoff("m4", "t5"),
          handoff("m2", "t6"),
        ]),
        textTurn("all six reported"),
      ],
      m1: [slow("m1", 200), slow("m1", 20)],
      m2: [slow("m2", 150), slow("m2", 20)],
      m3: [slow("m3", 60)],
      m4: [slow("m4", 30)],
    });
    const team = createTeam({
      name: "research",
      lead: mockAgent(server, "lead"),
      members: ["m1", "m2", "m3", "m4"].map(name =>
        teamMember({ name, role: "executor", agent: mockAgent(server, name) }),
      ),
      runner: { maxConcurrentWorkItems: 4 },
    });
    const events = await collect(team.query("Fan out."));
    expect(events.at(-1)).toMatchObject({ subtype: "success", result: "all six reported" });
    expect(maxInflight).toBe(4);
    expect(selfOverlap).toBe(false);
    // Work finished out of handoff order …
    expect(order[0]).not.toBe("m1");
    // … and events were emitted as it progressed (a later handoff finished before the first one's finish) …
    const finished = events.flatMap(e =>
      e.type === "team_agent" && e.subtype === "finished" ? [e.agent] : [],
    );
    expect(finished[0]).not.toBe("m1");
    // … while the reports reached the lead in handoff order.
    const told = lastUserText(requestsFor(server, "lead")[1]!);
    const members = [...told.matchAll(/\[team_report\] \{"member":"(m\d)"/g)].map(match => match[1]);
    expect(members).toEqual(["m1", "m2", "m1", "m3", "m4", "m2"]);
    expect(told.indexOf("m1 done after 200ms")).toBeLessThan(told.indexOf("m1 done after 20ms"));
  });

  it("twelve items on one run, waiting or running, stop together on abort — with no listener warnings", async () => {
    // Work items listen to the run's abort through one shared listener (not one each, which Node flags past ten).
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const names = Array.from({ length: 12 }, (_, i) => `m${i}`);
      for (const maxConcurrentWorkItems of [1, 12]) {
        const controller = new AbortController();
        let started = 0;
        const server = await teamMock({
          lead: [turn(names.map(name => handoff(name, `task for ${name}`)))],
          ...Object.fromEntries(
            names.map(name => [
              name,
              [
                () => {
                  started += 1;
                  // Abort once the first member (serial) or every member (concurrent) is running.
                  if (started === (maxConcurrentWorkItems === 1 ? 1 : names.length))
                    setTimeout(() => controller.abort(), 20);
                  return textTurn("too late", { delayMs: 5_000 });
                },
              ],
            ]),
          ),
        });
        const team = createTeam({
          name: "wide",
          lead: mockAgent(server, "lead"),
          members: names.map(name => teamMember({ name, role: "executor", agent: mockAgent(server, name) })),
          runner: { maxConcurrentWorkItems },
        });
        const events = await collect(team.query("Go.", { signal: controller.signal }));
        expect(events.at(-1)).toMatchObject({ type: "result", subtype: "error_abort" });
        expect(started).toBe(maxConcurrentWorkItems === 1 ? 1 : names.length);
        for (const name of names) {
          const [message] = await team.mailbox.inbox(`wide::${name}`, { status: "all" });
          expect(message).toMatchObject({ status: "cancelled", outcome: { error: { code: "aborted" } } });
        }
      }
      await new Promise(resolve => setImmediate(resolve));
      expect(warnings.filter(warning => warning.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("defaults to serial work (maxConcurrentWorkItems 1)", async () => {
    let inflight = 0;
    let maxInflight = 0;
    const slow = (model: string) => async () => {
      inflight += 1;
      maxInflight = Math.max(maxInflight, inflight);
      await new Promise(resolve => setTimeout(resolve, 30));
      inflight -= 1;
      return textTurn(`${model} ok`);
    };
    const server = await teamMock({
      lead: [turn([handoff("a", "x"), handoff("b", "y")]), textTurn("done")],
      a: [slow("a")],
      b: [slow("b")],
    });
    const team = createTeam({
      name: "t",
      lead: mockAgent(server, "lead"),
      members: ["a", "b"].map(name => teamMember({ name, role: "executor", agent: mockAgent(server, name) })),
    });
    expect(team.runner.maxConcurrentWorkItems).toBe(1);
    await team.prompt("go");
    expect(maxInflight).toBe(1);
  });
});

describe("event shape of a failed handoff", () => {
  it("streams claimed → failed → sent:followup for a failing member", async () => {
    const server = await teamMock({
      lead: [turn([handoff("looper", "loop")]), textTurn("noted")],
      looper: [toolTurn({ name: "noop", input: {} })],
    });
    const team = createTeam({
      name: "ops",
      lead: mockAgent(server, "lead"),
      members: [
        teamMember({
          name: "looper",
          role: "executor",
          agent: mockAgent(server, "looper", { maxTurns: 1, tools: [noop] }),
        }),
      ],
    });
    const labels = shape(await collect(team.query("go"))).filter(label => label.startsWith("team_"));
    expect(labels).toEqual([
      "team_message/sent:delegation",
      "team_message/claimed:delegation",
      "team_agent/started:looper",
      "team_message/failed:delegation",
      "team_message/sent:followup",
      "team_agent/finished:looper",
    ]);
  });
});

describe("how a team run ends", () => {
  it("a consumer that stops reading mid-handoff aborts the run: nothing hangs, the work is cancelled", async () => {
    const server = await teamMock({
      lead: [turn([handoff("first", "a"), handoff("second", "b")])],
      first: [textTurn("slow", { delayMs: 5_000 })],
    });
    const team = createTeam({
      name: "ops",
      lead: mockAgent(server, "lead"),
      members: ["first", "second"].map(name =>
        teamMember({ name, role: "executor", agent: mockAgent(server, name) }),
      ),
    });
    for await (const event of team.query("Go.")) {
      if (event.type === "team_agent" && event.subtype === "started") break;
    }
    for (const member of ["first", "second"]) {
      const [message] = await team.mailbox.inbox(`ops::${member}`, { status: "all" });
      expect(message!.status).toBe("cancelled");
    }
    // The team is usable again.
    server.respondWith(() => textTurn("fresh start"));
    expect((await team.prompt("Again.")).result).toBe("fresh start");
  });

  it("handoffs of a final batch that ends the run (endTurn) are cancelled, not left pending", async () => {
    const finish = tool(
      "finish",
      "End the run.",
      { jsonSchema: { type: "object", properties: {} }, parse: (input: unknown) => input as object },
      async () => ({ content: "finished early", endTurn: true }),
    );
    const server = await teamMock({ lead: [turn([handoff("later", "x"), toolUse("finish", {})])] });
    const team = createTeam({
      name: "ops",
      lead: mockAgent(server, "lead", { tools: [finish] }),
      members: [teamMember({ name: "later", role: "executor", agent: mockAgent(server, "later") })],
    });
    const events = await collect(team.query("Go."));
    expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "finished early" });
    const [message] = await team.mailbox.inbox("ops::later", { status: "all" });
    expect(message).toMatchObject({ status: "cancelled", outcome: { error: { code: "lead_ended" } } });
    expect(shape(events)).toContain("team_message/cancelled:delegation");
    expect(requestsFor(server, "later")).toHaveLength(0);
  });
});
