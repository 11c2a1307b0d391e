// Spec "Team runtime drain" and "Routing loops" (T7, T9): explicit routing, claimNext, drain, the mailbox tools,
// the no-reply rule and bounded loops.
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { createTeam, TeamError, teamMember } from "../src/index.js";
import { lastUserText, mockAgent, requestsFor, teamMock } from "./helpers.js";

describe("team.send / team.mailbox.claimNext / team.drain (T9)", () => {
  it("claimNext(mailboxId) claims one pending message of that mailbox and marks it processing", async () => {
    const server = await teamMock({});
    const team = createTeam({
      name: "engineering",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "researcher", role: "executor", agent: mockAgent(server, "researcher") })],
    });
    const first = await team.send({ to: "researcher", content: "Look at the loop." });
    await team.send("engineering::lead", "engineering::researcher", "Look at the tracer.");
    expect(first).toMatchObject({
      status: "pending",
      from: "engineering::lead",
      to: "engineering::researcher",
      kind: "message",
    });

    const message = await team.mailbox.claimNext("engineering::researcher");
    expect(message).toMatchObject({ id: first.id, status: "processing", attempts: 1 });
    expect(typeof message?.claimToken).toBe("string");
    // One member works serially: the second message waits while the first is processing.
    expect(await team.mailbox.claimNext("engineering::researcher")).toBeUndefined();
    expect(await team.mailbox.claimNext("engineering::nobody")).toBeUndefined();
    await team.mailbox.complete(message!.id, message!.claimToken);
    expect((await team.mailbox.claimNext("engineering::researcher"))?.content).toBe("Look at the tracer.");
  });

  it("routing is explicit: unknown recipients are rejected with the valid ones named", async () => {
    const server = await teamMock({});
    const team = createTeam({
      name: "engineering",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "researcher", role: "executor", agent: mockAgent(server, "researcher") })],
    });
    await expect(team.send({ to: "designer", content: "hi" })).rejects.toThrow(
      /has no mailbox "designer".*researcher.*"engineering::researcher"/,
    );
    await expect(team.send({ to: "sales::researcher", content: "hi" })).rejects.toBeInstanceOf(TeamError);
    await expect(team.send({ to: "lead", content: "hi" })).rejects.toThrow(/send work to a member/);
  });

  it("drain() prompts each member on its own mailbox; team_reply completes the message with a reply upstream", async () => {
    const server = await teamMock({
      researcher: [
        toolTurn({ name: "team_reply", input: { content: "The loop is one async generator." } }),
        textTurn("Replied."),
      ],
      writer: [textTurn("I wrote something but forgot to reply.")],
    });
    const team = createTeam({
      name: "engineering",
      lead: mockAgent(server, "lead"),
      members: [
        teamMember({ name: "researcher", role: "executor", agent: mockAgent(server, "researcher") }),
        teamMember({ name: "writer", role: "executor", agent: mockAgent(server, "writer") }),
      ],
    });
    const question = await team.send({ to: "researcher", content: "How is the loop built?" });
    const chore = await team.send({ to: "writer", content: "Write the changelog." });
    const events: string[] = [];
    const result = await team.drain({
      maxRounds: 5,
      maxMessages: 20,
      onEvent: event => {
        if (event.type === "team_message")
          events.push(`${event.subtype}:${event.message.kind}:${event.message.to}`);
      },
    });
    expect(result).toMatchObject({
      rounds: 1,
      processed: 2,
      completed: 1,
      failed: 1,
      cancelled: 0,
      stopped: "idle",
    });

    // The member saw the message framed with its ids and the reply rule.
    const prompt = lastUserText(requestsFor(server, "researcher")[0]!);
    expect(prompt).toContain(`message_id: ${question.id}`);
    expect(prompt).toContain("How is the loop built?");
    expect(prompt).toContain("team_reply");

    expect(await team.mailbox.get(question.id)).toMatchObject({
      status: "completed",
      outcome: { content: "The loop is one async generator." },
    });
    // A member that ends without team_reply/team_followup: the message fails, a diagnostic follow-up goes upstream.
    expect(await team.mailbox.get(chore.id)).toMatchObject({
      status: "failed",
      outcome: { error: { code: "no_reply" } },
    });
    const upstream = await team.mailbox.inbox(team.leadMailboxId);
    expect(upstream.map(message => [message.kind, message.from, message.parentMessageId])).toEqual([
      ["reply", "engineering::researcher", question.id],
      ["followup", "engineering::writer", chore.id],
    ]);
    expect(upstream[1]!.content).toMatch(
      /^no_reply: writer ended its run .* without calling team_reply or team_followup/,
    );
    expect(upstream[1]!.metadata).toMatchObject({ diagnostic: true });
    expect(events).toContain(`completed:message:engineering::researcher`);
    expect(events).toContain(`failed:message:engineering::writer`);
    // Nothing left: a second drain is idle at once.
    expect(await team.drain()).toMatchObject({ processed: 0, rounds: 0, stopped: "idle" });
  });

  it("team_followup reports progress upstream without failing the message", async () => {
    const server = await teamMock({
      researcher: [
        toolTurn({ name: "team_followup", input: { content: "Half way; need the API key list." } }),
        textTurn("ok"),
      ],
    });
    const team = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "researcher", role: "executor", agent: mockAgent(server, "researcher") })],
    });
    const sent = await team.send({ to: "researcher", content: "Audit the keys." });
    await team.drain();
    expect((await team.mailbox.get(sent.id))!.status).toBe("completed");
    const [followup] = await team.mailbox.inbox("eng::lead");
    expect(followup).toMatchObject({
      kind: "followup",
      content: "Half way; need the API key list.",
      parentMessageId: sent.id,
    });
  });

  it("team_send routes member-to-member; a routing loop is not blocked, drain's limits bound it", async () => {
    const pingPong = (to: string) => () =>
      toolTurn({ name: "team_send", input: { to, content: `over to ${to}` } });
    const server = await teamMock({
      ping: Array.from({ length: 10 }, () => [
        pingPong("pong"),
        () => toolTurn({ name: "team_reply", input: { content: "sent on" } }),
        () => textTurn("ok"),
      ]).flat(),
      pong: Array.from({ length: 10 }, () => [
        pingPong("ping"),
        () => toolTurn({ name: "team_reply", input: { content: "sent back" } }),
        () => textTurn("ok"),
      ]).flat(),
    });
    const team = createTeam({
      name: "loop",
      lead: mockAgent(server, "lead"),
      members: [
        teamMember({ name: "ping", role: "executor", agent: mockAgent(server, "ping") }),
        teamMember({ name: "pong", role: "executor", agent: mockAgent(server, "pong") }),
      ],
    });
    const start = await team.send({ to: "ping", content: "start the rally" });
    const result = await team.drain({ maxRounds: 3 });
    expect(result.stopped).toBe("max_rounds");
    expect(result.rounds).toBe(3);
    // Each hop stays in the starting thread, so mailbox status shows the whole rally.
    const thread = await team.mailbox.thread(start.threadId);
    const requests = thread.filter(message => message.kind === "message");
    expect(requests.length).toBeGreaterThanOrEqual(4);
    expect(requests.every(message => message.threadId === start.threadId)).toBe(true);
    // Pending work is left for later, not lost.
    expect(thread.some(message => message.status === "pending")).toBe(true);
    const limited = await team.drain({ maxMessages: 1 });
    expect(limited).toMatchObject({ processed: 1, stopped: "max_messages" });
  });

  it("mailbox tools refuse politely outside team work, and the lead gets them only with exposeLeadMailboxTools", async () => {
    const server = await teamMock({
      researcher: [toolTurn({ name: "team_inbox", input: {} }), textTurn("nothing")],
      lead2: [
        toolTurn({ name: "team_send", input: { to: "researcher", content: "Please check the docs." } }),
        textTurn("sent"),
      ],
      researcher2: [toolTurn({ name: "team_reply", input: { content: "Docs are fine." } }), textTurn("done")],
    });
    const researcher = mockAgent(server, "researcher");
    const team = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "researcher", role: "executor", agent: researcher })],
    });
    expect(team.tools.map(tool => tool.name)).toEqual(["researcher"]);
    await researcher.prompt("check your inbox");
    expect(lastUserText(requestsFor(server, "researcher")[1]!)).toContain("team_mailbox_unavailable");

    const manual = createTeam({
      name: "manual",
      lead: mockAgent(server, "lead2"),
      members: [
        teamMember({ name: "researcher", role: "executor", agent: mockAgent(server, "researcher2") }),
      ],
      exposeLeadMailboxTools: true,
    });
    expect(manual.tools.map(tool => tool.name)).toContain("team_send");
    await manual.prompt("Ask the researcher to check the docs by mail.");
    const sent = JSON.parse(lastUserText(requestsFor(server, "lead2")[1]!));
    expect(sent).toMatchObject({ status: "pending", to: "manual::researcher" });
    await manual.drain();
    expect((await manual.mailbox.get(sent.message_id))!.status).toBe("completed");
    expect((await manual.mailbox.inbox("manual::lead"))[0]).toMatchObject({
      kind: "reply",
      content: "Docs are fine.",
    });
  });
});

describe("team_read / team_status / team_inbox during mailbox work (T7)", () => {
  it("a member reads its message, sees its thread and inbox, then replies", async () => {
    let messageId = "";
    const server = await teamMock({
      researcher: [
        () => toolTurn({ name: "team_read", input: { message_id: messageId } }),
        () => toolTurn({ name: "team_status", input: {} }),
        () => toolTurn({ name: "team_inbox", input: { status: "all" } }),
        () => toolTurn({ name: "team_read", input: { message_id: "msg_not_mine" } }),
        () => toolTurn({ name: "team_reply", input: { content: "Read it; done." } }),
        () => toolTurn({ name: "team_reply", input: { content: "Twice?" } }),
        () => textTurn("ok"),
      ],
    });
    const team = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "researcher", role: "executor", agent: mockAgent(server, "researcher") })],
    });
    const sent = await team.send({
      to: "researcher",
      content: "Read me in full.",
      metadata: { priority: "high" },
    });
    messageId = sent.id;
    await team.drain();
    const requests = requestsFor(server, "researcher");
    const read = JSON.parse(lastUserText(requests[1]!));
    expect(read).toMatchObject({
      message_id: sent.id,
      content: "Read me in full.",
      metadata: { priority: "high" },
      status: "processing",
    });
    const status = JSON.parse(lastUserText(requests[2]!));
    expect(status).toMatchObject({
      thread_id: sent.threadId,
      messages: [{ message_id: sent.id, status: "processing" }],
    });
    const inbox = JSON.parse(lastUserText(requests[3]!));
    expect(inbox).toMatchObject({ mailbox: "eng::researcher", messages: [{ message_id: sent.id }] });
    expect(JSON.parse(lastUserText(requests[4]!))).toMatchObject({ code: "team_message_not_found" });
    expect(JSON.parse(lastUserText(requests[5]!))).toMatchObject({
      status: "reply_recorded",
      message_id: sent.id,
    });
    expect(JSON.parse(lastUserText(requests[6]!))).toMatchObject({ code: "team_already_replied" });
    expect(await team.mailbox.get(sent.id)).toMatchObject({
      status: "completed",
      outcome: { content: "Read it; done." },
    });
  });
});
