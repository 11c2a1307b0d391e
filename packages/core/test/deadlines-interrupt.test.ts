// Deadlines (C26) and interrupt() (C27).
import { createScriptedModelClient, hang, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { AbortError, createBareAgent, type ModelClient, TimeoutError, tool } from "../src/index.js";
import { collect, mockServer } from "./helpers.js";

/** A client that ignores its signal and never answers: only the loop's own race can end the wait. */
const deafClient: ModelClient = {
  create: () => new Promise(() => {}),
  stream: () => ({
    [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<never>>(() => {}) }),
  }),
};

describe("deadlines (C26)", () => {
  it("requestTimeoutMs ends a hung request with error_timeout and a TimeoutError", async () => {
    const server = await mockServer([hang()]);
    // Generous: the deadline also covers loading @anthropic-ai/sdk on a worker's first request, slow on a busy machine.
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      requestTimeoutMs: 1_000,
      maxRetries: 0,
    });
    const result = await agent.prompt("hi");
    expect(result).toMatchObject({ subtype: "error_timeout", is_error: true });
    expect(result.error).toBeInstanceOf(TimeoutError);
    expect(result.error).toMatchObject({ code: "request_timeout", timeoutMs: 1_000 });
    expect(server.requests).toHaveLength(1); // the deadline is not multiplied by retries
  });

  it("a query's requestTimeoutMs overrides the agent's, per request, not per query", async () => {
    const slowTurn = (text: string) => textTurn(text, { delayMs: 60 });
    const server = await mockServer([
      toolTurn({ name: "noop", input: {} }, { delayMs: 60 }),
      toolTurn({ name: "noop", input: {} }, { delayMs: 60 }),
      slowTurn("done"),
    ]);
    const noop = tool("noop", "noop", z.object({}), async () => ({ content: "" }));
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [noop],
      requestTimeoutMs: 10,
    });
    // Three requests of ~60 ms each: a 1 s per-request budget is plenty even though the agent default is not.
    const result = await agent.prompt("go", { requestTimeoutMs: 1_000 });
    expect(result).toMatchObject({ subtype: "success", result: "done", num_turns: 3 });
  });

  it("is enforced even when the ModelClient ignores the signal (streaming and not)", async () => {
    for (const stream of [true, false]) {
      const agent = createBareAgent({ model: "m", modelClient: deafClient, requestTimeoutMs: 50 });
      const result = await agent.prompt("hi", { stream });
      expect(result.subtype).toBe("error_timeout");
    }
  });

  it("the query signal bounds the whole query (error_abort + AbortError), also against a deaf client", async () => {
    const agent = createBareAgent({ model: "m", modelClient: deafClient });
    const result = await agent.prompt("hi", { signal: AbortSignal.timeout(50) });
    expect(result).toMatchObject({ subtype: "error_abort", is_error: true });
    expect(result.error).toBeInstanceOf(AbortError);
  });

  it("the signal reaches a client that honours it", async () => {
    const client = createScriptedModelClient({ script: [hang()] });
    const controller = new AbortController();
    const pending = createBareAgent({ model: "m", modelClient: client }).prompt("hi", {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    expect((await pending).subtype).toBe("error_abort");
  });
});

describe("interrupt() (C27)", () => {
  it("returns false when idle", () => {
    const agent = createBareAgent({ model: "m", modelClient: createScriptedModelClient() });
    expect(agent.interrupt()).toBe(false);
  });

  it("during streaming: ends 'interrupted' (is_error false), drops the partial message, keeps completed turns", async () => {
    const server = await mockServer([
      textTurn("Nice to meet you."),
      textTurn("A long draft of release notes that streams slowly ".repeat(5), { chunkDelayMs: 20 }),
      textTurn("Covering 0.16.0 only."),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    await agent.prompt("Hello.");
    const messages = [];
    for await (const message of agent.query("Draft the release notes.")) {
      messages.push(message);
      if (message.type === "stream_event" && message.event.type === "content_block_delta") {
        expect(agent.interrupt()).toBe(true);
        expect(agent.interrupt()).toBe(false); // already interrupting
      }
    }
    const result = messages.at(-1)!;
    expect(result).toMatchObject({ type: "result", subtype: "interrupted", is_error: false });
    expect(messages.some(m => m.type === "assistant")).toBe(false);
    expect((await agent.getHistory()).map(m => m.role)).toEqual(["user", "assistant", "user"]);

    const next = await agent.prompt("Actually, skip 0.15.x and cover 0.16.0 only.");
    expect(next.result).toBe("Covering 0.16.0 only.");
    expect(server.requests[2]!.body.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "user",
    ]);
  });

  it("during a tool batch: running tools are told to stop, their results are written, the query ends before the next model call", async () => {
    let agentRef!: ReturnType<typeof createBareAgent>;
    let interruptedDuringBatch: boolean | undefined;
    const slow = tool("slow", "slow", z.object({}), async (_input, { signal }) => {
      interruptedDuringBatch = agentRef.interrupt();
      await new Promise(resolve => setTimeout(resolve, 20));
      return { content: signal.aborted ? "aborted" : "finished" };
    });
    const server = await mockServer([toolTurn({ name: "slow", input: {} }), textTurn("never requested")]);
    agentRef = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [slow] });
    const messages = await collect(agentRef.query("go"));
    expect(interruptedDuringBatch).toBe(true);
    expect(messages.map(m => m.type).filter(t => t !== "stream_event")).toEqual([
      "system",
      "assistant",
      "user",
      "result",
    ]);
    expect(messages.at(-1)).toMatchObject({ subtype: "interrupted", is_error: false });
    expect(server.requests).toHaveLength(1);
    const history = await agentRef.getHistory();
    expect(history.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", content: "aborted" }],
    });

    // The same agent answers a new prompt with every completed turn in its history.
    expect((await agentRef.prompt("Carry on.")).result).toBe("never requested");
    expect(server.requests[1]!.body.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "user",
    ]);
  });

  it("interrupt is scoped to one query: the next query runs normally", async () => {
    const client = createScriptedModelClient({ script: [hang(), textTurn("fine")] });
    const agent = createBareAgent({ model: "m", modelClient: client });
    const pending = agent.prompt("one");
    await new Promise(resolve => setTimeout(resolve, 10));
    expect(agent.interrupt()).toBe(true);
    expect((await pending).subtype).toBe("interrupted");
    expect((await agent.prompt("two")).result).toBe("fine");
  });
});
