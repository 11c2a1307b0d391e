/**
 * @agent-lattice/team/conformance — the behaviour every TeamMailbox must have, as a vitest suite. Run it against
 * your adapter:
 *
 *     import { describeTeamMailboxConformance } from "@agent-lattice/team/conformance";
 *     describeTeamMailboxConformance("my mailbox", { create: () => createMyMailbox() });
 *
 * It needs vitest (an optional peer dependency of this package). Stores shared by several processes also pass
 * `crossProcess`: the suite then starts processes that claim from one store at once and checks that no message is
 * claimed twice.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { TeamMailbox, TeamMailboxWatch, TeamMessage } from "./mailbox.js";

export interface TeamMailboxConformanceOptions {
  /** A fresh, empty mailbox for one test. */
  create(): TeamMailbox | Promise<TeamMailbox>;
  /** Releases what create() made (close the database, delete the file). */
  destroy?(mailbox: TeamMailbox): void | Promise<void>;
  /** A second handle on the same store as `mailbox` (another connection), for cross-connection claims. */
  reopen?(mailbox: TeamMailbox): TeamMailbox | Promise<TeamMailbox>;
  /**
   * Claims from several processes at once. `module` is an ES module (path or file URL) whose default export
   * `open(config)` returns a TeamMailbox on the store `config(mailbox)` describes (e.g. { file }); it must be
   * loadable by plain `node` (JavaScript, or built output).
   */
  crossProcess?: {
    module: string | URL;
    config(mailbox: TeamMailbox): unknown;
    /** Claimer processes (default 4). */
    processes?: number;
  };
}

const CLAIMER = fileURLToPath(new URL("../conformance/claimer.mjs", import.meta.url));
const SENDER = fileURLToPath(new URL("../conformance/sender.mjs", import.meta.url));
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

export function describeTeamMailboxConformance(name: string, options: TeamMailboxConformanceOptions): void {
  describe(`TeamMailbox conformance: ${name}`, () => {
    const made: TeamMailbox[] = [];
    const fresh = async () => {
      const mailbox = await options.create();
      made.push(mailbox);
      return mailbox;
    };
    afterEach(async () => {
      for (const mailbox of made.splice(0)) await options.destroy?.(mailbox);
    });

    it("send() stores a pending message with ids, defaults and a copy-on-read record", async () => {
      const mailbox = await fresh();
      const sent = await mailbox.send({ from: "t::lead", to: "t::a", content: "hello", metadata: { n: 1 } });
      expect(sent).toMatchObject({
        from: "t::lead",
        to: "t::a",
        content: "hello",
        kind: "message",
        status: "pending",
        attempts: 0,
        metadata: { n: 1 },
      });
      for (const id of [sent.id, sent.workItemId, sent.threadId]) expect(typeof id).toBe("string");
      expect(new Set([sent.id, sent.workItemId, sent.threadId]).size).toBe(3);
      expect(sent.createdAt).toBeGreaterThan(0);
      const read = await mailbox.get(sent.id);
      expect(read).toEqual(sent);
      read!.content = "mutated";
      expect((await mailbox.get(sent.id))!.content).toBe("hello");
      expect(await mailbox.get("msg_unknown")).toBeUndefined();
      const plain = await mailbox.send({ from: "t::lead", to: "t::a", content: "" });
      expect(plain.metadata).toEqual({});
    });

    it("send() rejects invalid input and stores nothing", async () => {
      const mailbox = await fresh();
      await expect(mailbox.send({ from: "t::lead", to: "", content: "x" })).rejects.toThrow();
      await expect(
        mailbox.send({ from: "t::lead", to: "t::a", content: 1 as unknown as string }),
      ).rejects.toThrow();
      await expect(
        mailbox.send({ from: "t::lead", to: "t::a", content: "x", kind: "gossip" as TeamMessage["kind"] }),
      ).rejects.toThrow();
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(
        mailbox.send({ from: "t::lead", to: "t::a", content: "x", metadata: cyclic }),
      ).rejects.toThrow();
      expect(await mailbox.inbox("t::a", { status: "all" })).toEqual([]);
    });

    it("replies and follow-ups inherit the parent's thread and work item; requests start a new work item", async () => {
      const mailbox = await fresh();
      const request = await mailbox.send({
        from: "t::lead",
        to: "t::a",
        content: "do it",
        kind: "delegation",
      });
      const reply = await mailbox.send({
        from: "t::a",
        to: "t::lead",
        content: "done",
        kind: "reply",
        parentMessageId: request.id,
      });
      const onward = await mailbox.send({
        from: "t::a",
        to: "t::b",
        content: "help",
        parentMessageId: request.id,
      });
      expect(reply).toMatchObject({
        threadId: request.threadId,
        workItemId: request.workItemId,
        parentMessageId: request.id,
      });
      expect(onward.threadId).toBe(request.threadId);
      expect(onward.workItemId).not.toBe(request.workItemId);
      expect((await mailbox.thread(request.threadId)).map(message => message.id)).toEqual([
        request.id,
        reply.id,
        onward.id,
      ]);
    });

    it("inbox() lists a mailbox's messages oldest first, pending by default, filtered by status and limited", async () => {
      const mailbox = await fresh();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++)
        ids.push((await mailbox.send({ from: "t::lead", to: "t::a", content: `m${i}` })).id);
      await mailbox.send({ from: "t::lead", to: "t::b", content: "other" });
      const claimed = await mailbox.claimNext("t::a");
      expect((await mailbox.inbox("t::a")).map(message => message.id)).toEqual(ids.slice(1));
      expect((await mailbox.inbox("t::a", { status: "processing" })).map(message => message.id)).toEqual([
        claimed!.id,
      ]);
      expect((await mailbox.inbox("t::a", { status: "all" })).map(message => message.id)).toEqual(ids);
      expect((await mailbox.inbox("t::a", { status: "all", limit: 2 })).map(message => message.id)).toEqual(
        ids.slice(0, 2),
      );
      expect(await mailbox.inbox("t::nobody")).toEqual([]);
    });

    it("claimNext() claims the oldest pending message of that mailbox only, with a token and a lease", async () => {
      const mailbox = await fresh();
      await mailbox.send({ from: "t::lead", to: "t::b", content: "for b" });
      const first = await mailbox.send({ from: "t::lead", to: "t::a", content: "first" });
      await mailbox.send({ from: "t::lead", to: "t::a", content: "second" });
      const before = Date.now();
      const claimed = await mailbox.claimNext("t::a", { owner: "worker-1", leaseMs: 10_000 });
      expect(claimed).toMatchObject({
        id: first.id,
        status: "processing",
        claimedBy: "worker-1",
        attempts: 1,
      });
      expect(claimed!.claimToken.length).toBeGreaterThan(0);
      expect(claimed!.leaseExpiresAt).toBeGreaterThanOrEqual(before + 10_000);
      expect(await mailbox.get(first.id)).toMatchObject({ status: "processing", claimedBy: "worker-1" });
      expect(await mailbox.claimNext("t::empty")).toBeUndefined();
    });

    it("a mailbox is serial: nothing else of it is claimed while one message is processing under a live lease", async () => {
      const mailbox = await fresh();
      const first = await mailbox.send({ from: "t::lead", to: "t::a", content: "first" });
      const second = await mailbox.send({ from: "t::lead", to: "t::a", content: "second" });
      await mailbox.send({ from: "t::lead", to: "t::b", content: "b" });
      const claimed = await mailbox.claimNext("t::a");
      expect(await mailbox.claimNext("t::a")).toBeUndefined();
      expect(await mailbox.claim(second.id)).toBeUndefined();
      expect(await mailbox.claimNext("t::b")).toBeDefined(); // other mailboxes are independent
      await mailbox.complete(first.id, claimed!.claimToken);
      expect((await mailbox.claim(second.id))?.id).toBe(second.id);
    });

    it("claim(id) takes one specific pending message; not a processing or settled one", async () => {
      const mailbox = await fresh();
      await mailbox.send({ from: "t::lead", to: "t::a", content: "older" });
      const target = await mailbox.send({ from: "t::lead", to: "t::a", content: "target" });
      const claimed = await mailbox.claim(target.id, { leaseMs: 5_000 });
      expect(claimed).toMatchObject({ id: target.id, status: "processing" });
      expect(await mailbox.claim(target.id)).toBeUndefined();
      await mailbox.complete(target.id, claimed!.claimToken);
      expect(await mailbox.claim(target.id)).toBeUndefined();
      expect(await mailbox.claim("msg_unknown")).toBeUndefined();
    });

    it("complete() settles once, with its reply written atomically; a wrong token changes nothing", async () => {
      const mailbox = await fresh();
      const request = await mailbox.send({ from: "t::lead", to: "t::a", content: "q", kind: "delegation" });
      const claimed = (await mailbox.claimNext("t::a"))!;
      const reply = {
        from: "t::a",
        to: "t::lead",
        content: "answer",
        kind: "reply" as const,
        parentMessageId: request.id,
      };
      expect(await mailbox.complete(request.id, "not-the-token", { send: [reply] })).toBeUndefined();
      expect(await mailbox.inbox("t::lead", { status: "all" })).toEqual([]);
      const settled = await mailbox.complete(request.id, claimed.claimToken, {
        outcome: { content: "answer" },
        send: [reply],
      });
      expect(settled!.message).toMatchObject({ status: "completed", outcome: { content: "answer" } });
      expect(settled!.message.claimedBy).toBeUndefined();
      expect(settled!.message.leaseExpiresAt).toBeUndefined();
      expect(settled!.sent).toHaveLength(1);
      expect(settled!.sent[0]).toMatchObject({
        kind: "reply",
        status: "pending",
        threadId: request.threadId,
        workItemId: request.workItemId,
      });
      expect(await mailbox.complete(request.id, claimed.claimToken, { send: [reply] })).toBeUndefined();
      expect(await mailbox.fail(request.id, claimed.claimToken)).toBeUndefined();
      expect(await mailbox.inbox("t::lead", { status: "all" })).toHaveLength(1);
    });

    it("fail() records the error and its diagnostic follow-up together", async () => {
      const mailbox = await fresh();
      const request = await mailbox.send({ from: "t::lead", to: "t::a", content: "q" });
      const claimed = (await mailbox.claimNext("t::a"))!;
      const settled = await mailbox.fail(request.id, claimed.claimToken, {
        outcome: { content: "no reply", error: { code: "no_reply", message: "ended without team_reply" } },
        send: [
          {
            from: "t::a",
            to: "t::lead",
            content: "diagnostic",
            kind: "followup",
            parentMessageId: request.id,
            metadata: { diagnostic: true },
          },
        ],
      });
      expect(settled!.message).toMatchObject({ status: "failed", outcome: { error: { code: "no_reply" } } });
      expect((await mailbox.inbox("t::lead"))[0]).toMatchObject({
        kind: "followup",
        metadata: { diagnostic: true },
      });
    });

    it("release() returns a claim to pending; the next claim counts a second attempt", async () => {
      const mailbox = await fresh();
      const request = await mailbox.send({ from: "t::lead", to: "t::a", content: "q" });
      const claimed = (await mailbox.claimNext("t::a"))!;
      expect(await mailbox.release(request.id, "wrong")).toBeUndefined();
      expect(await mailbox.release(request.id, claimed.claimToken)).toMatchObject({ status: "pending" });
      const again = (await mailbox.claimNext("t::a"))!;
      expect(again).toMatchObject({ id: request.id, attempts: 2 });
      expect(again.claimToken).not.toBe(claimed.claimToken);
    });

    it("cancel(): pending without a token; processing only with the claim's token; terminal never", async () => {
      const mailbox = await fresh();
      const waiting = await mailbox.send({ from: "t::lead", to: "t::a", content: "later" });
      expect(await mailbox.cancel(waiting.id, { outcome: { content: "not needed" } })).toMatchObject({
        status: "cancelled",
        outcome: { content: "not needed" },
      });
      expect(await mailbox.cancel(waiting.id)).toBeUndefined();
      const running = await mailbox.send({ from: "t::lead", to: "t::a", content: "now" });
      const claimed = (await mailbox.claimNext("t::a"))!;
      expect(claimed.id).toBe(running.id);
      expect(await mailbox.cancel(running.id)).toBeUndefined();
      expect(await mailbox.cancel(running.id, { claimToken: "wrong" })).toBeUndefined();
      expect(await mailbox.cancel(running.id, { claimToken: claimed.claimToken })).toMatchObject({
        status: "cancelled",
      });
      expect(await mailbox.complete(running.id, claimed.claimToken)).toBeUndefined();
      expect(await mailbox.cancel("msg_unknown")).toBeUndefined();
    });

    it("an expired lease is reclaimed (its claimer died); the old claim can then neither renew nor settle", async () => {
      const mailbox = await fresh();
      const request = await mailbox.send({ from: "t::lead", to: "t::a", content: "q" });
      const dead = (await mailbox.claimNext("t::a", { owner: "dead", leaseMs: 40 }))!;
      expect(await mailbox.claimNext("t::a", { owner: "alive" })).toBeUndefined();
      await sleep(80);
      const alive = (await mailbox.claimNext("t::a", { owner: "alive", leaseMs: 10_000 }))!;
      expect(alive).toMatchObject({ id: request.id, claimedBy: "alive", attempts: 2 });
      expect(await mailbox.renew(request.id, dead.claimToken, 10_000)).toBe(false);
      expect(await mailbox.complete(request.id, dead.claimToken)).toBeUndefined();
      expect(await mailbox.complete(request.id, alive.claimToken)).toBeDefined();
    });

    it("renew() keeps a live claim from being reclaimed", async () => {
      const mailbox = await fresh();
      const request = await mailbox.send({ from: "t::lead", to: "t::a", content: "q" });
      const claimed = (await mailbox.claim(request.id, { leaseMs: 60 }))!;
      await sleep(30);
      expect(await mailbox.renew(request.id, claimed.claimToken, 1_000)).toBe(true);
      await sleep(60);
      expect(await mailbox.claimNext("t::a")).toBeUndefined();
      expect((await mailbox.get(request.id))!.leaseExpiresAt).toBeGreaterThan(Date.now());
    });

    it("records every status change: one terminal transition per message", async () => {
      const mailbox = await fresh();
      const request = await mailbox.send({ from: "t::lead", to: "t::a", content: "q" });
      const first = (await mailbox.claimNext("t::a", { owner: "w1" }))!;
      await mailbox.release(request.id, first.claimToken);
      const second = (await mailbox.claimNext("t::a", { owner: "w2" }))!;
      await mailbox.complete(request.id, second.claimToken);
      const log = await mailbox.transitions(request.id);
      expect(log.map(entry => [entry.from, entry.to])).toEqual([
        [null, "pending"],
        ["pending", "processing"],
        ["processing", "pending"],
        ["pending", "processing"],
        ["processing", "completed"],
      ]);
      expect(log[1]).toMatchObject({ owner: "w1", claimToken: first.claimToken });
      expect(log[4]).toMatchObject({ owner: "w2", claimToken: second.claimToken });
      for (let i = 1; i < log.length; i++) expect(log[i]!.at).toBeGreaterThanOrEqual(log[i - 1]!.at);
    });

    it("concurrent claimers never get the same message", async () => {
      const mailbox = await fresh();
      const other = options.reopen ? await options.reopen(mailbox) : mailbox;
      const boxes = Array.from({ length: 8 }, (_, i) => `t::m${i}`);
      for (const box of boxes)
        for (let i = 0; i < 5; i++) await mailbox.send({ from: "t::lead", to: box, content: `${box}#${i}` });
      const seen: string[] = [];
      const worker = async (handle: TeamMailbox) => {
        let idle = 0;
        while (idle < 3) {
          let got = false;
          for (const box of boxes) {
            const claimed = await handle.claimNext(box, { leaseMs: 5_000 });
            if (!claimed) continue;
            got = true;
            seen.push(claimed.id);
            await handle.complete(claimed.id, claimed.claimToken);
          }
          idle = got ? 0 : idle + 1;
        }
      };
      await Promise.all([worker(mailbox), worker(other), worker(mailbox), worker(other)]);
      expect(seen).toHaveLength(40);
      expect(new Set(seen).size).toBe(40);
      if (other !== mailbox) await other.close?.();
    });

    // watch() is optional; a mailbox that has it must keep its promises.
    const watchOf = async (
      mailbox: TeamMailbox,
      ids: string[],
      skip: () => void,
      signal?: AbortSignal,
    ): Promise<TeamMailboxWatch> => {
      if (typeof mailbox.watch !== "function") skip();
      return mailbox.watch!(ids, signal ? { signal } : {});
    };

    it("watch(): a message sent to a watched mailbox wakes a waiter; a change before wait() is not lost", async ctx => {
      const mailbox = await fresh();
      const watch = await watchOf(mailbox, ["t::a", "t::b"], () => ctx.skip());
      try {
        const waiting = watch.wait({ timeoutMs: 10_000 });
        await mailbox.send({ from: "t::lead", to: "t::b", content: "wake up" });
        expect(await waiting).toBe(true);
        // Sent while nobody waited: the next wait() resolves at once.
        await mailbox.send({ from: "t::lead", to: "t::a", content: "again" });
        await sleep(20);
        const started = Date.now();
        expect(await watch.wait({ timeoutMs: 5_000 })).toBe(true);
        expect(Date.now() - started).toBeLessThan(2_500);
      } finally {
        await watch.close();
      }
    });

    it("watch(): settling, releasing or cancelling a message of a watched mailbox wakes a waiter", async ctx => {
      const mailbox = await fresh();
      const first = await mailbox.send({ from: "t::lead", to: "t::a", content: "one" });
      const second = await mailbox.send({ from: "t::lead", to: "t::a", content: "two" });
      const watch = await watchOf(mailbox, ["t::a"], () => ctx.skip());
      try {
        const claimed = (await mailbox.claimNext("t::a"))!;
        let waiting = watch.wait({ timeoutMs: 10_000 });
        await mailbox.release(first.id, claimed.claimToken);
        expect(await waiting).toBe(true);
        const again = (await mailbox.claimNext("t::a"))!;
        waiting = watch.wait({ timeoutMs: 10_000 });
        await mailbox.complete(first.id, again.claimToken);
        expect(await waiting).toBe(true);
        waiting = watch.wait({ timeoutMs: 10_000 });
        await mailbox.cancel(second.id);
        expect(await waiting).toBe(true);
      } finally {
        await watch.close();
      }
    });

    it("watch(): wait() times out with false when nothing changes; close() and the signal end pending waits", async ctx => {
      const mailbox = await fresh();
      const controller = new AbortController();
      const watch = await watchOf(mailbox, ["t::quiet"], () => ctx.skip(), controller.signal);
      const started = Date.now();
      expect(await watch.wait({ timeoutMs: 60 })).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(50);
      const stop = new AbortController();
      const stopped = watch.wait({ signal: stop.signal });
      stop.abort();
      expect(await stopped).toBe(false);
      const pending = watch.wait();
      controller.abort();
      expect(await pending).toBe(false);
      expect(await watch.wait({ timeoutMs: 1_000 })).toBe(false);
      await watch.close();
      const other = await watchOf(mailbox, ["t::quiet"], () => ctx.skip());
      const waiting = other.wait();
      await other.close();
      expect(await waiting).toBe(false);
    });

    if (options.reopen) {
      const reopen = options.reopen;
      it("watch(): a change made through another handle on the same store wakes a waiter", async ctx => {
        const mailbox = await fresh();
        const watch = await watchOf(mailbox, ["t::a"], () => ctx.skip());
        const other = await reopen(mailbox);
        try {
          const waiting = watch.wait({ timeoutMs: 10_000 });
          await other.send({ from: "t::lead", to: "t::a", content: "from elsewhere" });
          expect(await waiting).toBe(true);
        } finally {
          await watch.close();
          await other.close?.();
        }
      });
    }

    if (options.crossProcess) {
      const cross = options.crossProcess;
      it("watch(): a message sent by another process wakes a waiter here", {
        timeout: 30_000,
      }, async ctx => {
        const mailbox = await fresh();
        const watch = await watchOf(mailbox, ["t::remote"], () => ctx.skip());
        try {
          const module = cross.module instanceof URL ? cross.module.href : cross.module;
          const waiting = watch.wait({ timeoutMs: 20_000 });
          const output = await run(process.execPath, [
            SENDER,
            module,
            JSON.stringify(cross.config(mailbox)),
            "t::remote",
            "sent by another process",
          ]);
          expect(await waiting).toBe(true);
          const { id } = JSON.parse(output) as { id: string };
          expect((await mailbox.inbox("t::remote")).map(message => message.id)).toEqual([id]);
        } finally {
          await watch.close();
        }
      });
    }

    if (options.crossProcess) {
      const cross = options.crossProcess;
      it("several processes claiming from one store at once never claim a message twice", {
        timeout: 60_000,
      }, async () => {
        const mailbox = await fresh();
        const boxes = Array.from({ length: 6 }, (_, i) => `t::p${i}`);
        const ids = new Set<string>();
        for (let i = 0; i < 240; i++) {
          ids.add(
            (await mailbox.send({ from: "t::lead", to: boxes[i % boxes.length]!, content: `job ${i}` })).id,
          );
        }
        const processes = cross.processes ?? 4;
        const barrier = mkdtempSync(join(tmpdir(), "agent-lattice-claimers-"));
        const module = cross.module instanceof URL ? cross.module.href : cross.module;
        const outputs = await Promise.all(
          Array.from({ length: processes }, (_, index) =>
            run(process.execPath, [
              CLAIMER,
              module,
              JSON.stringify(cross.config(mailbox)),
              JSON.stringify(boxes),
              barrier,
              String(processes),
              `claimer-${index}`,
            ]),
          ),
        ).finally(() => rmSync(barrier, { recursive: true, force: true }));
        const claimed = outputs.flatMap(output => (JSON.parse(output) as { claimed: string[] }).claimed);
        expect(claimed).toHaveLength(ids.size);
        expect(new Set(claimed)).toEqual(ids);
        // More than one process did work (they really competed).
        expect(
          outputs.filter(output => (JSON.parse(output) as { claimed: string[] }).claimed.length > 0).length,
        ).toBeGreaterThan(1);
        for (const id of ids) {
          const log = await mailbox.transitions(id);
          expect(log.filter(entry => entry.to === "processing")).toHaveLength(1);
          expect(log.at(-1)!.to).toBe("completed");
        }
      });
    }
  });
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 50_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}
