// How the runtime treats a mailbox whose store fails, by the mark the mailbox puts on its errors (see the TeamMailbox
// port): `transient: true` (unreachable for now) is waited out by a worker and by a lead waiting for remote work —
// nothing exits, the run succeeds — and `transient: false` (a misconfiguration) stops the worker with that error.
// The store here is the memory mailbox with failures injected in front of it, as a remote store would throw them; the
// PostgreSQL package runs the same shapes against a real server whose connections are terminated.
import { textTurn, toolUse, turn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import {
  createMemoryMailbox,
  createTeam,
  runTeamWorker,
  type TeamMailbox,
  teamMember,
} from "../src/index.js";
import { lastUserText, mockAgent, teamMock } from "./helpers.js";

type Method = "watch" | "claimNext" | "get" | "inbox" | "claim";

/**
 * The memory mailbox, whose listed methods throw `error()` on their first `times[method]` calls; `calls` counts the
 * calls of each.
 */
function failing(
  times: Partial<Record<Method, number>>,
  error: () => Error,
  calls: Partial<Record<Method, number>> = {},
): TeamMailbox {
  const inner = createMemoryMailbox();
  const left = { ...times };
  const guard =
    <A extends unknown[], R>(method: Method, call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      calls[method] = (calls[method] ?? 0) + 1;
      if ((left[method] ?? 0) > 0) {
        left[method]! -= 1;
        return Promise.reject(error());
      }
      return call(...args);
    };
  return {
    ...inner,
    watch: guard("watch", inner.watch!.bind(inner)),
    claimNext: guard("claimNext", inner.claimNext.bind(inner)),
    get: guard("get", inner.get.bind(inner)),
    inbox: guard("inbox", inner.inbox.bind(inner)),
    claim: guard("claim", inner.claim.bind(inner)),
  };
}

const unreachable = () => Object.assign(new Error("the store is unreachable"), { transient: true });
const misconfigured = () =>
  Object.assign(new Error("the store refused the login"), { transient: false, code: "store_auth" });

describe("a mailbox whose store fails", () => {
  it("transient failures (watch, claims, 25 reads in a row, the reports' inbox) are waited out: the work completes", async () => {
    const server = await teamMock({
      lead: [
        turn([toolUse("alpha", { mode: "handoff", task: "task A" })]),
        request => textTurn(`reported: ${lastUserText(request).includes("alpha done A")}`),
      ],
      alpha: [textTurn("alpha done A")],
    });
    // Both processes' first watch() fails; reads fail more often in a row than a waiting lead tolerates of
    // unmarked failures (20); the lead cannot mark the reply delivered (claim).
    const mailbox = failing({ watch: 2, claimNext: 3, get: 25, inbox: 2, claim: 1 }, unreachable);
    const members = () => [
      teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") }),
    ];
    const stop = new AbortController();
    const reported: unknown[] = [];
    const worker = runTeamWorker({
      name: "eng",
      members: members(),
      mailbox,
      leaseMs: 100,
      signal: stop.signal,
      onError: error => reported.push(error),
    });
    const lead = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: members(),
      mailbox,
      runner: { execution: "remote", leaseMs: 100 },
    });
    const result = await lead.prompt("Hand off A.");
    expect(result).toMatchObject({ subtype: "success", result: "reported: true" });
    stop.abort();
    expect(await worker).toMatchObject({ completed: 1, lost: 0 });
    // The reply it could not acknowledge stays pending in the lead's mailbox, for the host to see.
    expect((await mailbox.inbox("eng::lead")).map(message => message.content)).toEqual(["alpha done A"]);
    // The worker reported what it retried (the watch and the claims it made itself).
    expect(reported.length).toBeGreaterThanOrEqual(2);
    expect(reported.every(error => (error as { transient?: boolean }).transient === true)).toBe(true);
  });

  it("a permanent failure stops the worker with that error, at once and without onError", async () => {
    const server = await teamMock({});
    const reported: unknown[] = [];
    const worker = runTeamWorker({
      name: "eng",
      members: [teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") })],
      mailbox: failing({ claimNext: 1_000 }, misconfigured),
      onError: error => reported.push(error),
    });
    await expect(worker).rejects.toMatchObject({ code: "store_auth", transient: false });
    expect(reported).toEqual([]);
  });

  it("a permanent failure of the lead's wait fails its run with that error, at once", async () => {
    const calls: Partial<Record<Method, number>> = {};
    const server = await teamMock({ lead: [turn([toolUse("alpha", { mode: "handoff", task: "task A" })])] });
    const lead = createTeam({
      name: "eng",
      lead: mockAgent(server, "lead"),
      members: [teamMember({ name: "alpha", role: "executor", agent: mockAgent(server, "alpha") })],
      mailbox: failing({ get: 1_000 }, misconfigured, calls),
      runner: { execution: "remote", leaseMs: 100 },
    });
    await expect(lead.prompt("Hand off A.")).rejects.toMatchObject({ code: "store_auth", transient: false });
    expect(calls.get).toBe(1);
  });
});
