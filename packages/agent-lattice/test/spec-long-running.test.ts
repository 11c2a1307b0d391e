// Spec sections "JSONL Context Tracing", "Automatic Context Compaction", "Persistent History And Resume",
// "Deadlines", "Interrupting A Query" and "Token Usage And Truncation" (C18, C25–C28, R2).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAgent,
  createJsonlContextTracer,
  createJsonlHistoryStore,
  defineContextTracer,
  defineHistoryStore,
  type ModelMessage,
} from "agent-lattice";
import { hang, textTurn, toolTurn } from "agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { captureConsole, mockProvider, plainMessages } from "./helpers.js";

let dir: string;
let cwd: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-spec-"));
  cwd = process.cwd();
  process.chdir(dir); // the snippets use relative paths such as .agent-runs/session.jsonl
});
afterEach(async () => {
  process.chdir(cwd);
  await rm(dir, { recursive: true, force: true });
});

describe("spec: JSONL Context Tracing (R2)", () => {
  it("writes one structured event per line with session_id, run_id, seq, source, type and data", async () => {
    const server = await mockProvider([textTurn("Nice to meet you, Ada.")]);

    const tracer = createJsonlContextTracer({
      path: ".agent-runs/session.jsonl",
    });

    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      tracer,
    });

    await agent.prompt("Remember that my name is Ada.");
    await tracer.flush?.();

    const lines = (await readFile(join(dir, ".agent-runs/session.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map(l => JSON.parse(l));
    expect(lines.map(e => e.type)).toEqual([
      "run_start",
      "user_message",
      "model_request",
      "assistant_message",
      "result",
    ]);
    for (const [index, entry] of lines.entries()) {
      expect(Object.keys(entry).sort()).toEqual([
        "data",
        "run_id",
        "seq",
        "session_id",
        "source",
        "time",
        "type",
        "v",
      ]);
      expect(entry).toMatchObject({ session_id: agent.sessionId, seq: index, source: "agent", v: 1 });
    }
    expect(lines[1].data).toEqual({ content: "Remember that my name is Ada.", origin: "prompt" });
    expect(lines[4].data).toMatchObject({ subtype: "success", result: "Nice to meet you, Ada." });
  });

  it("a custom sink made with defineContextTracer receives the same events", async () => {
    const server = await mockProvider([textTurn("ok")]);
    const types: string[] = [];
    const tracer = defineContextTracer({
      async onEvent(event) {
        types.push(event.type);
      },
    });
    await createAgent({ apiKey: "k", baseURL: server.url, model: "m", tracer }).prompt("x");
    expect(types).toEqual(["run_start", "user_message", "model_request", "assistant_message", "result"]);
    expect(Object.keys(tracer).sort()).toEqual(["close", "flush", "onEvent"]);
  });
});

describe("spec: Automatic Context Compaction (C18)", () => {
  it("autoCompact: true summarizes older history once a response reports > 100000 input tokens", async () => {
    const small = { input_tokens: 1_000, output_tokens: 20 };
    const server = await mockProvider([
      textTurn("one", { usage: small }),
      textTurn("two", { usage: small }),
      textTurn("three", { usage: small }),
      textTurn("four", { usage: { input_tokens: 150_000, output_tokens: 20 } }),
      textTurn("Summary: the user asked for four steps; all are done.", {
        usage: { input_tokens: 2_000, output_tokens: 30 },
      }),
      textTurn("Refactored.", { usage: small }),
    ]);
    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      autoCompact: true, // or { thresholdTokens: 150_000, keepRecentMessages: 8 }
    });
    for (const step of ["one", "two", "three", "four"]) await agent.prompt(`Step ${step}.`);
    const printed = captureConsole();

    for await (const message of agent.query("Refactor this module.")) {
      if (message.type === "system" && message.subtype === "compaction") {
        console.log(`compacted ${message.compacted_messages} messages`, message.usage);
      }
    }

    // 8 messages + the new prompt = 9; the last 6 are kept, 3 are summarized.
    expect(printed).toEqual([
      [
        "compacted 3 messages",
        {
          input_tokens: 2_000,
          output_tokens: 30,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      ],
    ]);
    const sent = plainMessages(server.requests[5]!.body.messages) as ModelMessage[];
    expect(sent).toHaveLength(7);
    expect(String(sent[0]!.content)).toContain("Summary: the user asked for four steps; all are done.");
    expect(sent.at(-1)).toEqual({ role: "user", content: "Refactor this module." });
  });
});

describe("spec: Persistent History And Resume (C25)", () => {
  it("the JSONL store seeds a new agent and mirrors every message; getHistory returns a copy", async () => {
    const server = await mockProvider([textTurn("Nice to meet you, Ada."), textTurn("Your name is Ada.")]);
    const first = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      historyStore: createJsonlHistoryStore({ path: ".agent-sessions/ada.jsonl" }),
    });
    await first.prompt("My name is Ada.");

    // A later process: a new Agent over the same store.
    const historyStore = createJsonlHistoryStore({
      path: ".agent-sessions/ada.jsonl",
    });

    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      historyStore,
    });

    const result = await agent.prompt("What is my name?");

    const transcript = await agent.getHistory();

    expect(result.result).toBe("Your name is Ada.");
    expect(plainMessages(server.requests[1]!.body.messages).map((m: ModelMessage) => m.content)).toEqual([
      "My name is Ada.",
      [{ type: "text", text: "Nice to meet you, Ada." }],
      "What is my name?",
    ]);
    expect(transcript).toHaveLength(4);
    const lines = (await readFile(join(dir, ".agent-sessions/ada.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(4);
  });

  it("defineHistoryStore and replaceHistory: the host's rewrite replaces the store and suppresses the lazy load", async () => {
    const server = await mockProvider([textTurn("Hello again, Ada.")]);
    const database: ModelMessage[] = [{ role: "user", content: "stale" }];
    let loads = 0;
    const historyStore = defineHistoryStore({
      load: () => {
        loads += 1;
        return [...database];
      },
      append: message => {
        database.push(message);
      },
      replace: messages => {
        database.splice(0, database.length, ...messages);
      },
    });
    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      historyStore,
    });

    await agent.replaceHistory([
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: [{ type: "text", text: "Nice to meet you, Ada." }] },
    ]);
    await agent.prompt("Hi.");

    expect(loads).toBe(0);
    expect(database.map(m => m.content)).toEqual([
      "My name is Ada.",
      [{ type: "text", text: "Nice to meet you, Ada." }],
      "Hi.",
      [{ type: "text", text: "Hello again, Ada." }],
    ]);
  });
});

describe("spec: Deadlines (C26)", () => {
  it("requestTimeoutMs on the agent and the query; signal bounds the whole query", async () => {
    const server = await mockProvider([hang(), textTurn("Audit complete.")]);
    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      requestTimeoutMs: 120_000,
      maxRetries: 0,
    });

    const timedOut = await agent.prompt("Audit this repository.", {
      signal: AbortSignal.timeout(600_000),
      requestTimeoutMs: 1_000, // overrides the agent default for this query
    });
    const result = await agent.prompt("Audit this repository.", {
      signal: AbortSignal.timeout(600_000),
      requestTimeoutMs: 60_000,
    });

    expect(timedOut).toMatchObject({ subtype: "error_timeout", error: { code: "request_timeout" } });
    expect(result).toMatchObject({ subtype: "success", result: "Audit complete." });
  });
});

describe("spec: Interrupting A Query (C27)", () => {
  it("interrupt() ends the query 'interrupted'; the agent continues with a new prompt", async () => {
    const server = await mockProvider([hang(), textTurn("Release notes for 0.16.0.")]);
    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      maxRetries: 0,
    });

    const pending = agent.prompt("Draft the release notes.");
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    expect(agent.interrupt()).toBe(true); // e.g. the user typed a correction
    const result = await pending;
    // result.subtype === "interrupted"

    await agent.prompt("Actually, skip 0.15.x and cover 0.16.0 only.");

    expect(result).toMatchObject({ subtype: "interrupted", is_error: false });
    expect(agent.interrupt()).toBe(false);
    expect(plainMessages(server.requests[1]!.body.messages).map((m: ModelMessage) => m.content)).toEqual([
      "Draft the release notes.",
      "Actually, skip 0.15.x and cover 0.16.0 only.",
    ]);
  });
});

describe("spec: Token Usage And Truncation (C28)", () => {
  it("usage sums every request incl. cache reads; stop_reason max_tokens marks a truncated answer", async () => {
    const server = await mockProvider([
      toolTurn(
        { name: "missing", input: {} },
        { usage: { input_tokens: 500, output_tokens: 12, cache_read_input_tokens: 300 } },
      ),
      textTurn("A partial summ", {
        stopReason: "max_tokens",
        usage: { input_tokens: 700, output_tokens: 500, cache_read_input_tokens: 500 },
      }),
    ]);
    const agent = createAgent({ apiKey: "test-key", baseURL: server.url, model: "claude-sonnet-4-6" });
    const printed = captureConsole();

    const result = await agent.prompt("Summarize this file.");
    console.log(result.usage);
    // { input_tokens: 1200, output_tokens: 512, cache_read_input_tokens: 800 }

    if (result.stop_reason === "max_tokens") {
      // subtype is still "success", but result is a fragment, not an answer.
    }

    expect(printed[0]![0]).toEqual({
      input_tokens: 1200,
      output_tokens: 512,
      cache_read_input_tokens: 800,
      cache_creation_input_tokens: 0,
    });
    expect(result).toMatchObject({ subtype: "success", stop_reason: "max_tokens", result: "A partial summ" });
  });

  it("a tool batch truncated at max_tokens is not executed; the model is asked to reissue shorter, and the loop continues", async () => {
    const server = await mockProvider([
      toolTurn({ name: "write_report", input: { body: "cut off" } }, { stopReason: "max_tokens" }),
      textTurn("I'll split it."),
    ]);
    const agent = createAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const result = await agent.prompt("Write the report.");
    expect(result.result).toBe("I'll split it.");
    const block = server.requests[1]!.body.messages.at(-1).content[0];
    expect(block.is_error).toBe(true);
    expect(block.content).toContain("max_tokens");
    expect(block.content).toContain("Reissue the call with a shorter output");
  });
});
