// Automatic context compaction (C18), driven through the mock server over HTTP.
import { promptTooLong, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  createBareAgent,
  DEFAULT_COMPACTION_PROMPT,
  type ModelMessage,
  type SDKMessage,
  tool,
} from "../src/index.js";
import { collect, contentText, mockServer } from "./helpers.js";

const note = tool("note", "Take a note", z.object({ text: z.string() }), async ({ text }) => ({
  content: `noted: ${text}`,
}));
const big = {
  input_tokens: 150_000,
  output_tokens: 10,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};
const small = {
  input_tokens: 100,
  output_tokens: 10,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

function isSummaryRequest(body: { messages: ModelMessage[] }) {
  const first = body.messages[0]?.content;
  return typeof first === "string" && first.includes("<conversation>");
}

describe("autoCompact (C18)", () => {
  it("compacts between turns once reported input exceeds the threshold, keeping recent messages and tool pairs", async () => {
    const server = await mockServer([
      toolTurn({ name: "note", input: { text: "a" } }, { usage: small }),
      toolTurn({ name: "note", input: { text: "b" } }, { usage: small }),
      toolTurn({ name: "note", input: { text: "c" } }, { usage: big }),
      textTurn("SUMMARY: notes a, b, c taken.", { usage: { input_tokens: 900, output_tokens: 40 } }),
      textTurn("All done.", { usage: small }),
    ]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [note],
      autoCompact: { thresholdTokens: 100_000, keepRecentMessages: 3 },
    });
    const messages = await collect(agent.query("Take three notes."));

    // The summarizing request: a transcript of the older messages under the default prompt, no tools.
    const summaryRequest = server.requests[3]!.body;
    expect(isSummaryRequest(summaryRequest)).toBe(true);
    expect(summaryRequest.messages[0].content.startsWith(DEFAULT_COMPACTION_PROMPT)).toBe(true);
    expect(summaryRequest).not.toHaveProperty("tools");
    expect(summaryRequest.messages[0].content).toContain('[tool call note {"text":"a"}]');

    // History before compaction: user, (assistant, user) × 3 = 7 messages. keep 3 → cut at 4 would keep a
    // tool_result without its tool_use, so the cut moves back to 3 (the assistant turn that called "b").
    const compaction = messages.find(m => m.type === "system" && m.subtype === "compaction") as Extract<
      SDKMessage,
      { subtype: "compaction" }
    >;
    expect(compaction).toMatchObject({ trigger: "threshold", compacted_messages: 3 });
    expect(compaction.usage).toEqual({
      input_tokens: 900,
      output_tokens: 40,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });

    const next = server.requests[4]!.body.messages;
    expect(next[0].role).toBe("user");
    expect(next[0].content).toContain("Continue the task from where it left off");
    expect(next[0].content).toContain("SUMMARY: notes a, b, c taken.");
    expect(next.slice(1).map((m: ModelMessage) => m.role)).toEqual([
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(next[1].content[0]).toMatchObject({ type: "tool_use", input: { text: "b" } });

    const result = messages.at(-1)!;
    expect(result).toMatchObject({ type: "result", subtype: "success", result: "All done." });
    // Usage folds in the summarizing call.
    expect(result.type === "result" && result.usage.input_tokens).toBe(100 + 100 + 150_000 + 900 + 100);
    expect(await agent.getHistory()).toHaveLength(6);
  });

  it("never splits a tool_result from its tool_use: the cut moves back to the assistant turn", async () => {
    const server = await mockServer([
      toolTurn({ name: "note", input: { text: "a" } }, { usage: small }),
      toolTurn({ name: "note", input: { text: "b" } }, { usage: big }),
      textTurn("summary"),
      textTurn("done"),
    ]);
    // History at compaction: user, A(tool a), U(result a), A(tool b), U(result b). keep 2 → cut 3 would start with
    // A(tool b) — fine; keep 1 → cut 4 starts with U(result b), so it moves to 3.
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [note],
      autoCompact: { keepRecentMessages: 1, thresholdTokens: 1000 },
    });
    const messages = await collect(agent.query("go"));
    expect(messages.find(m => m.type === "system" && m.subtype === "compaction")).toMatchObject({
      compacted_messages: 3,
    });
    const kept = server.requests[3]!.body.messages.slice(1);
    expect(kept[0].content[0]).toMatchObject({ type: "tool_use", input: { text: "b" } });
    expect(kept[1].content[0]).toMatchObject({ type: "tool_result" });
  });

  it("is skipped when no safe cut leaves anything to summarize", async () => {
    const server = await mockServer([
      textTurn("first", { usage: big }),
      textTurn("second", { usage: small }),
    ]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      autoCompact: { keepRecentMessages: 10 },
    });
    await agent.prompt("one");
    const messages = await collect(agent.query("two"));
    expect(messages.some(m => m.type === "system" && m.subtype === "compaction")).toBe(false);
    expect(server.requests).toHaveLength(2);
    expect(server.requests.some(r => isSummaryRequest(r.body))).toBe(false);
  });

  it("uses a custom prompt", async () => {
    const server = await mockServer([textTurn("x", { usage: big }), textTurn("summary"), textTurn("y")]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      autoCompact: { keepRecentMessages: 1, prompt: "Summarize tersely." },
    });
    await agent.prompt("one");
    await agent.prompt("two");
    expect(server.requests[1]!.body.messages[0].content.startsWith("Summarize tersely.")).toBe(true);
  });

  it("a custom ModelClient that omits usage never compacts", async () => {
    let calls = 0;
    const agent = createBareAgent({
      model: "m",
      autoCompact: { thresholdTokens: 1, keepRecentMessages: 0 },
      modelClient: {
        create: async () => {
          calls += 1;
          return {
            message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
            stopReason: "end_turn",
          };
        },
      },
    });
    await agent.prompt("a");
    await agent.prompt("b");
    expect(calls).toBe(2);
  });

  it("recovers once from stop_reason model_context_window_exceeded: summarize, then retry the same turn", async () => {
    const server = await mockServer([
      textTurn("ok", { usage: small }),
      textTurn("", { stopReason: "model_context_window_exceeded", usage: big }),
      textTurn("summary of earlier work"),
      textTurn("answer after recovery", { usage: small }),
    ]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      autoCompact: { keepRecentMessages: 1 },
    });
    await agent.prompt("first");
    const messages = await collect(agent.query("second"));
    expect(messages.find(m => m.type === "system" && m.subtype === "compaction")).toMatchObject({
      trigger: "recovery",
    });
    const result = messages.at(-1)!;
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      result: "answer after recovery",
      num_turns: 1,
    });
    // The retried request carries the summary plus the kept prompt.
    expect(server.requests[3]!.body.messages.map((m: ModelMessage) => m.role)).toEqual(["user", "user"]);
    expect(contentText(server.requests[3]!.body.messages[1].content)).toBe("second");
  });

  it('recovers from a "prompt is too long" 400 the same way', async () => {
    const server = await mockServer([
      textTurn("ok", { usage: small }),
      promptTooLong(215_000, 200_000),
      textTurn("summary"),
      textTurn("recovered"),
    ]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      autoCompact: { keepRecentMessages: 1 },
    });
    await agent.prompt("first");
    const result = await agent.prompt("second");
    expect(result).toMatchObject({ subtype: "success", result: "recovered" });
  });

  it("attempts recovery once per query; a second overflow surfaces unchanged", async () => {
    const server = await mockServer([
      textTurn("ok", { usage: small }),
      promptTooLong(),
      textTurn("summary"),
      promptTooLong(),
    ]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      autoCompact: { keepRecentMessages: 1 },
    });
    await agent.prompt("first");
    const result = await agent.prompt("second");
    expect(result.subtype).toBe("error_during_execution");
    expect(result.error?.message).toContain("prompt is too long");
    expect(server.requests).toHaveLength(4);
  });

  it("when there is nothing to summarize, the original failure surfaces unchanged", async () => {
    const server = await mockServer([promptTooLong()]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", autoCompact: true });
    const result = await agent.prompt("huge prompt");
    expect(result).toMatchObject({ subtype: "error_during_execution", error: { status: 400 } });
    expect(server.requests).toHaveLength(1);
  });

  it("when summarizing fails, the original failure surfaces unchanged", async () => {
    const server = await mockServer([textTurn("ok"), promptTooLong(), promptTooLong()]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      autoCompact: { keepRecentMessages: 1 },
    });
    await agent.prompt("first");
    const result = await agent.prompt("second");
    expect(result.subtype).toBe("error_during_execution");
    expect((await agent.getHistory()).map(m => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("stop_reason max_tokens never triggers compaction", async () => {
    const server = await mockServer([
      textTurn("ok"),
      textTurn("trunc", { stopReason: "max_tokens", usage: small }),
    ]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      autoCompact: { keepRecentMessages: 1 },
    });
    await agent.prompt("first");
    const result = await agent.prompt("second");
    expect(result).toMatchObject({ subtype: "success", stop_reason: "max_tokens", result: "trunc" });
    expect(server.requests).toHaveLength(2);
  });

  it("validates autoCompact options strictly", () => {
    expect(() =>
      createBareAgent({ apiKey: "k", model: "m", autoCompact: { threshold: 5 } as never }),
    ).toThrow('AgentOptions.autoCompact: unknown option "threshold".');
    expect(() =>
      createBareAgent({ apiKey: "k", model: "m", autoCompact: { keepRecentMessages: -1 } }),
    ).toThrow(/keepRecentMessages/);
  });
});
