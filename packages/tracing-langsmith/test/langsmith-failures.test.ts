// A LangSmith endpoint that fails or stalls must never break or hold the agent: onEvent hands runs to langsmith's
// background batching and returns. With failOnError the failure surfaces as LangSmithDeliveryError — from
// flush()/close(), or from the next query() when it is known by then — and only once.
import { AgentLatticeError, createBareAgent } from "@agent-lattice/core";
import { textTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLangSmithContextTracer, LangSmithDeliveryError } from "../src/index.js";
import { leadWithToolAndChild, mockModel, receiver, sleep } from "./helpers.js";

// langsmith logs its own delivery failures; keep the test output readable.
beforeEach(() => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("a failing LangSmith endpoint (500)", () => {
  it("the agent completes normally; close() resolves without failOnError", async () => {
    const ls = await receiver({ mode: "error500" });
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k", maxRetries: 1 });
    const result = await lead.prompt("Why are there tides?", { tracer });
    expect(result.subtype).toBe("success");
    await expect(tracer.close!()).resolves.toBeUndefined();
    // The client did try (and retried once).
    expect(ls.requests.filter(request => request.path.startsWith("/runs")).length).toBeGreaterThanOrEqual(2);
  });

  it("with failOnError, close() rejects with LangSmithDeliveryError naming the status", async () => {
    const ls = await receiver({ mode: "error500" });
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangSmithContextTracer({
      apiUrl: ls.url,
      apiKey: "k",
      maxRetries: 0,
      failOnError: true,
    });
    const result = await lead.prompt("Why are there tides?", { tracer });
    expect(result.subtype).toBe("success");
    const error = await tracer.close!().catch(caught => caught);
    expect(error).toBeInstanceOf(LangSmithDeliveryError);
    expect(error).toBeInstanceOf(AgentLatticeError);
    expect(error.code).toBe("langsmith_delivery_failed");
    expect(error.message).toContain("answered 500");
    // Raised once: a second flush has nothing new to report.
    await expect(tracer.flush!()).resolves.toBeUndefined();
  });

  it("with failOnError, a failure known before the next query makes that query() throw", async () => {
    const ls = await receiver({ mode: "error500" });
    const model = await mockModel([textTurn("one"), textTurn("two")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: model.url, model: "m" });
    const tracer = createLangSmithContextTracer({
      apiUrl: ls.url,
      apiKey: "k",
      maxRetries: 0,
      failOnError: true,
    });
    await agent.prompt("first", { tracer });
    // Let langsmith's batch (sent ~250 ms after the last run) fail at the receiver.
    for (let i = 0; i < 50 && !ls.requests.some(request => request.path.startsWith("/runs")); i++)
      await sleep(50);
    await sleep(200);
    await expect(agent.prompt("second", { tracer })).rejects.toBeInstanceOf(LangSmithDeliveryError);
  });
});

describe("a stalled LangSmith endpoint", () => {
  it("neither holds the agent nor close() beyond timeoutMs; failOnError reports the timeout", async () => {
    const ls = await receiver({ mode: "stall", failInfo: true });
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangSmithContextTracer({
      apiUrl: ls.url,
      apiKey: "k",
      timeoutMs: 400,
      maxRetries: 0,
      failOnError: true,
    });
    const result = await lead.prompt("Why are there tides?", { tracer });
    expect(result.subtype).toBe("success");
    const error = await tracer.close!().catch(caught => caught);
    expect(error).toBeInstanceOf(LangSmithDeliveryError);
    expect(error.message).toContain("timed out after 400 ms");
  });

  it("the run finishes while the endpoint has not answered a single request", async () => {
    const ls = await receiver({ mode: "stall", failInfo: true });
    const { lead } = await leadWithToolAndChild();
    const tracer = createLangSmithContextTracer({ apiUrl: ls.url, apiKey: "k", timeoutMs: 300 });
    // Warm the stall up: the server-info request is already hanging when the run starts.
    const result = await lead.prompt("Why are there tides?", { tracer });
    expect(result.subtype).toBe("success");
    expect(ls.runs.size).toBe(0);
    await expect(tracer.close!()).resolves.toBeUndefined();
  });
});
