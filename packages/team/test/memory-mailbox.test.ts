// T11: the memory mailbox passes the TeamMailbox conformance suite.
import { describe, expect, it } from "vitest";
import { describeTeamMailboxConformance } from "../src/conformance.js";
import { createMemoryMailbox } from "../src/index.js";

describeTeamMailboxConformance("createMemoryMailbox()", { create: () => createMemoryMailbox() });

describe("createMemoryMailbox(): what callers get back", () => {
  it("every returned message is the caller's own copy: changing it, its metadata or outcome changes nothing stored", async () => {
    const mailbox = createMemoryMailbox();
    const input = { from: "t::lead", to: "t::a", content: "task", metadata: { nested: { list: [1] } } };
    const sent = await mailbox.send(input);
    input.metadata.nested.list.push(2);
    (sent.metadata.nested as { list: number[] }).list.push(3);
    sent.status = "failed";
    const claimed = (await mailbox.claimNext("t::a"))!;
    claimed.metadata.extra = true;
    claimed.claimedBy = "someone else";
    const settled = (await mailbox.complete(claimed.id, claimed.claimToken, {
      outcome: { content: "done", error: { code: "x", message: "y" } },
      send: [{ from: "t::a", to: "t::lead", kind: "reply", content: "answer", parentMessageId: sent.id }],
    }))!;
    settled.message.outcome!.error!.code = "changed";
    settled.sent[0]!.metadata.injected = 1;
    const [fromInbox] = await mailbox.inbox("t::a", { status: "all" });
    fromInbox!.content = "changed";
    const [fromThread] = await mailbox.thread(sent.threadId);
    fromThread!.metadata.nested = "changed";
    const [transition] = await mailbox.transitions(sent.id);
    transition!.to = "cancelled";

    const stored = (await mailbox.get(sent.id))!;
    expect(stored).toMatchObject({
      status: "completed",
      content: "task",
      metadata: { nested: { list: [1] } },
      outcome: { content: "done", error: { code: "x", message: "y" } },
    });
    expect(stored.claimedBy).toBeUndefined();
    expect((await mailbox.get(settled.sent[0]!.id))!.metadata).toEqual({});
    expect((await mailbox.transitions(sent.id)).map(t => t.to)).toEqual([
      "pending",
      "processing",
      "completed",
    ]);
  });

  it("keeps the key order of a message (optional keys only when set)", async () => {
    const mailbox = createMemoryMailbox();
    const sent = await mailbox.send({ from: "t::lead", to: "t::a", content: "x" });
    expect(Object.keys(sent)).toEqual([
      "id",
      "workItemId",
      "threadId",
      "from",
      "to",
      "kind",
      "content",
      "status",
      "metadata",
      "createdAt",
      "updatedAt",
      "attempts",
    ]);
    const claimed = (await mailbox.claimNext("t::a"))!;
    expect(Object.keys(claimed).slice(-3)).toEqual(["claimedBy", "leaseExpiresAt", "claimToken"]);
    const { sent: replies, message } = (await mailbox.complete(claimed.id, claimed.claimToken, {
      outcome: { content: "ok" },
      send: [{ from: "t::a", to: "t::lead", kind: "reply", content: "r", parentMessageId: sent.id }],
    }))!;
    expect(Object.keys(message).at(-1)).toBe("outcome");
    expect(Object.keys(message)).not.toContain("claimedBy");
    expect(Object.keys(replies[0]!).slice(0, 4)).toEqual(["id", "workItemId", "threadId", "parentMessageId"]);
  });

  it("claimNext() takes the oldest open message after settles out of order and lease expiries", async () => {
    const mailbox = createMemoryMailbox();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await mailbox.send({ from: "t::lead", to: "t::a", content: `job ${i}` })).id);
    // Settle job 2 first (claimed by id), then work through the rest with claimNext().
    const third = (await mailbox.claim(ids[2]!))!;
    await mailbox.complete(third.id, third.claimToken);
    const order: string[] = [];
    // Job 0's first claim expires: the next claimNext() takes it again (oldest first), as attempt 2.
    const expiring = (await mailbox.claimNext("t::a", { leaseMs: 20 }))!;
    expect(expiring.id).toBe(ids[0]);
    expect(await mailbox.claimNext("t::a")).toBeUndefined(); // busy while the lease lives
    await new Promise(resolve => setTimeout(resolve, 40));
    while (true) {
      const next = await mailbox.claimNext("t::a");
      if (!next) break;
      order.push(next.id);
      if (next.id === ids[0]) expect(next.attempts).toBe(2);
      await mailbox.complete(next.id, next.claimToken);
    }
    expect(order).toEqual([ids[0], ids[1], ids[3], ids[4], ids[5]]);
    // The lost claim can no longer settle.
    expect(await mailbox.complete(expiring.id, expiring.claimToken)).toBeUndefined();
    expect((await mailbox.inbox("t::a", { status: "completed" })).length).toBe(6);
  });

  it("thread() lists a thread's messages oldest first, across mailboxes", async () => {
    const mailbox = createMemoryMailbox();
    const root = await mailbox.send({ from: "t::lead", to: "t::a", content: "root" });
    await mailbox.send({ from: "t::lead", to: "t::b", content: "elsewhere" });
    const hop = await mailbox.send({ from: "t::a", to: "t::b", content: "hop", parentMessageId: root.id });
    const reply = await mailbox.send({
      from: "t::b",
      to: "t::lead",
      content: "back",
      threadId: root.threadId,
    });
    expect((await mailbox.thread(root.threadId)).map(message => message.id)).toEqual([
      root.id,
      hop.id,
      reply.id,
    ]);
    expect(await mailbox.thread("th_unknown")).toEqual([]);
  });
});
