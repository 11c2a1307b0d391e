// Persistent history (C25): the HistoryStore port, the JSONL store, lazy load, replaceHistory and repair.
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  ConcurrentQueryError,
  createBareAgent,
  createJsonlHistoryStore,
  defineHistoryStore,
  type HistoryStore,
  type HistoryStoreMethods,
  InvalidOptionError,
  type ModelMessage,
  type SDKHistoryWarningMessage,
  type SDKMessage,
  tool,
} from "../src/index.js";
import { collect, mockServer, plainMessages } from "./helpers.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-lattice-history-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const add = tool("add", "Add two numbers", z.object({ a: z.number(), b: z.number() }), async ({ a, b }) => ({
  content: String(a + b),
}));

/** The non-empty lines of a file, unparsed. */
async function linesOf(path: string): Promise<string[]> {
  return (await readFile(path, "utf8")).split("\n").filter(line => line !== "");
}

async function messagesIn(path: string): Promise<ModelMessage[]> {
  return (await linesOf(path)).map(line => JSON.parse(line) as ModelMessage);
}

async function writeJsonl(path: string, messages: ModelMessage[]): Promise<void> {
  await writeFile(path, messages.map(message => `${JSON.stringify(message)}\n`).join(""));
}

/** Wraps a store in defineHistoryStore, counting the calls the agent makes. */
function counted(inner: HistoryStoreMethods) {
  const calls = { load: 0, append: 0, replace: 0 };
  const store = defineHistoryStore({
    load: () => {
      calls.load += 1;
      return inner.load();
    },
    append: message => {
      calls.append += 1;
      return inner.append(message);
    },
    replace: messages => {
      calls.replace += 1;
      return inner.replace(messages);
    },
  });
  return { store, calls };
}

/** An in-memory store's methods (wrap with defineHistoryStore or counted()). */
function memory(initial: ModelMessage[] = []) {
  const messages: ModelMessage[] = structuredClone(initial);
  const methods: HistoryStoreMethods = {
    load: () => structuredClone(messages),
    append: message => void messages.push(structuredClone(message)),
    replace: next => void messages.splice(0, messages.length, ...structuredClone(next)),
  };
  return { messages, methods };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>(done => {
    resolve = done;
  });
  return { promise, resolve };
}

const earlier: ModelMessage[] = [
  { role: "user", content: "My name is Ada." },
  { role: "assistant", content: [{ type: "text", text: "Nice to meet you, Ada." }] },
];

describe("createJsonlHistoryStore (C25)", () => {
  it("appends each user, assistant and tool_result message as one JSON line as it lands", async () => {
    const path = join(dir, "session.jsonl");
    let linesDuringTool = -1;
    const probe = tool(
      "add",
      "Add two numbers",
      z.object({ a: z.number(), b: z.number() }),
      async ({ a, b }) => {
        linesDuringTool = readFileSync(path, "utf8").split("\n").filter(Boolean).length;
        return { content: String(a + b) };
      },
    );
    const server = await mockServer([toolTurn({ name: "add", input: { a: 2, b: 3 } }), textTurn("5")]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [probe],
      historyStore: createJsonlHistoryStore({ path }),
    });
    await agent.prompt("What is 2+3?");

    // While the tool ran, the prompt and the assistant's tool_use turn were already on disk.
    expect(linesDuringTool).toBe(2);
    const stored = await messagesIn(path);
    expect(stored).toEqual(await agent.getHistory());
    expect(stored.map(message => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(stored[0]).toEqual({ role: "user", content: "What is 2+3?" });
    expect(stored[1]!.content).toEqual([expect.objectContaining({ type: "tool_use", name: "add" })]);
    expect(stored[2]!.content).toEqual([expect.objectContaining({ type: "tool_result", content: "5" })]);
    expect(stored[3]!.content).toEqual([expect.objectContaining({ type: "text", text: "5" })]);
  });

  it("loads lazily, once per Agent lifetime, before the first query", async () => {
    const path = join(dir, "session.jsonl");
    await writeJsonl(path, earlier);
    const { store, calls } = counted(createJsonlHistoryStore({ path }));
    const server = await mockServer([textTurn("one"), textTurn("two")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", historyStore: store });
    expect(calls.load).toBe(0);

    await agent.prompt("first");
    expect(calls.load).toBe(1);
    expect(server.requests[0]!.body.messages).toHaveLength(3);

    await agent.prompt("second");
    expect(calls.load).toBe(1);
    expect(server.requests[1]!.body.messages).toHaveLength(5);
  });

  it("a new Agent over the same file continues the conversation", async () => {
    const path = join(dir, "session.jsonl");
    const server = await mockServer([textTurn("Nice to meet you, Ada."), textTurn("Your name is Ada.")]);
    const first = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      historyStore: createJsonlHistoryStore({ path }),
    });
    await first.prompt("My name is Ada.");

    const second = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      historyStore: createJsonlHistoryStore({ path }),
    });
    const result = await second.prompt("What is my name?");
    expect(result.result).toBe("Your name is Ada.");
    expect(plainMessages(server.requests[1]!.body.messages)).toEqual([
      { role: "user", content: "My name is Ada." },
      {
        role: "assistant",
        content: [expect.objectContaining({ type: "text", text: "Nice to meet you, Ada." })],
      },
      { role: "user", content: "What is my name?" },
    ]);
    expect(await messagesIn(path)).toHaveLength(4);
  });

  it("load() skips a malformed line in the middle and a torn final line", async () => {
    const path = join(dir, "torn.jsonl");
    await writeFile(
      path,
      `${JSON.stringify(earlier[0])}\n{"role":"user","content":\n${JSON.stringify(earlier[1])}\n{"role":"user","con`,
    );
    const store = createJsonlHistoryStore({ path });
    expect(await store.load()).toEqual(earlier);
  });

  it("the append after a torn final line starts on a fresh line, so every other line still parses", async () => {
    const path = join(dir, "torn.jsonl");
    const torn = '{"role":"user","con';
    await writeFile(path, `${JSON.stringify(earlier[0])}\n${torn}`);
    const store = createJsonlHistoryStore({ path });
    await store.load();
    const next: ModelMessage = { role: "user", content: "after the crash" };
    await store.append(next);

    const lines = await linesOf(path);
    expect(lines).toEqual([JSON.stringify(earlier[0]), torn, JSON.stringify(next)]);
    for (const line of lines.filter(line => line !== torn)) expect(() => JSON.parse(line)).not.toThrow();
    expect(await createJsonlHistoryStore({ path }).load()).toEqual([earlier[0], next]);
  });

  it("an agent resuming a file with a torn final line appends its messages on fresh lines", async () => {
    const path = join(dir, "torn.jsonl");
    const torn = '{"role":"assistant","content":[{"type":"te';
    await writeFile(path, `${JSON.stringify(earlier[0])}\n${torn}`);
    const server = await mockServer([textTurn("Hello again.")]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      historyStore: createJsonlHistoryStore({ path }),
    });
    await agent.prompt("Hi.");

    const lines = await linesOf(path);
    expect(lines[1]).toBe(torn);
    expect(lines.filter(line => line !== torn).map(line => JSON.parse(line))).toEqual(
      await agent.getHistory(),
    );
  });
});

describe("what loading skipped is visible to the host", () => {
  const systemOf = (messages: SDKMessage[]) =>
    messages.filter(message => message.type === "system").map(message => message.subtype);

  it("a damaged middle line and a torn last line: the next query yields a history_warning for each, after init", async () => {
    const path = join(dir, "damaged.jsonl");
    const damaged = '{"role":"user","content":';
    await writeFile(
      path,
      `${JSON.stringify(earlier[0])}\n${damaged}\n${JSON.stringify(earlier[1])}\n{"role":"user","con`,
    );
    const client = createScriptedModelClient({ script: [textTurn("Hello again."), textTurn("Still here.")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: createJsonlHistoryStore({ path }),
    });
    const messages = await collect(agent.query("Do you remember me?"));
    expect(systemOf(messages)).toEqual(["init", "history_warning", "history_warning"]);
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init" });
    const [middle, last] = messages.slice(1, 3) as SDKHistoryWarningMessage[];
    expect(middle!.warning).toMatchObject({ code: "damaged_line", line: 2, preview: damaged });
    expect(middle!.warning.message).toContain(`${path}: line 2 was skipped because it is not valid JSON`);
    expect(last!.warning).toMatchObject({ code: "torn_last_line", line: 4, preview: '{"role":"user","con' });
    // Everything else was loaded, and the next query does not repeat the warnings.
    expect(plainMessages(client.requests[0]!.messages).slice(0, 2)).toEqual(earlier);
    expect(systemOf(await collect(agent.query("And now?")))).toEqual(["init"]);
  });

  it("a load that happened outside a query (getHistory) is announced by the next query", async () => {
    const path = join(dir, "damaged.jsonl");
    await writeFile(path, `${JSON.stringify(earlier[0])}\nnot json at all\n${JSON.stringify(earlier[1])}\n`);
    const client = createScriptedModelClient({ script: [textTurn("Hi.")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: createJsonlHistoryStore({ path }),
    });
    expect(await agent.getHistory()).toEqual(earlier);
    const messages = await collect(agent.query("Hello"));
    expect(systemOf(messages)).toEqual(["init", "history_warning"]);
  });

  it("a line that is JSON but not a message is reported too; a store of your own reports with context.warn()", async () => {
    const path = join(dir, "odd.jsonl");
    await writeFile(path, `${JSON.stringify(earlier[0])}\n{"note":"hand edit"}\n`);
    const warned: unknown[] = [];
    await createJsonlHistoryStore({ path }).load({ warn: warning => warned.push(warning) });
    expect(warned).toEqual([expect.objectContaining({ code: "damaged_line", line: 2 })]);

    const own = defineHistoryStore({
      load: context => {
        context?.warn({ code: "row_unreadable", message: "row 7 of table history could not be decoded" });
        return [];
      },
      append: () => {},
      replace: () => {},
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("ok")] }),
      historyStore: own,
    });
    const messages = await collect(agent.query("hi"));
    expect(messages[1]).toMatchObject({
      type: "system",
      subtype: "history_warning",
      warning: { code: "row_unreadable", message: "row 7 of table history could not be decoded" },
    });
  });
});

describe("replaceHistory (C25)", () => {
  it("after replaceHistory(messages) the JSONL file holds exactly those messages", async () => {
    const path = join(dir, "session.jsonl");
    const server = await mockServer([toolTurn({ name: "add", input: { a: 1, b: 2 } }), textTurn("3")]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [add],
      historyStore: createJsonlHistoryStore({ path }),
    });
    await agent.prompt("1+2?");
    expect(await messagesIn(path)).toHaveLength(4);

    await agent.replaceHistory(earlier);
    expect(await messagesIn(path)).toEqual(earlier);
    expect(await agent.getHistory()).toEqual(earlier);
  });

  it("replaceHistory() while a query runs rejects with ConcurrentQueryError and changes nothing", async () => {
    const started = deferred();
    const release = deferred();
    const wait = tool("wait", "Wait for a signal", z.object({}), async () => {
      started.resolve();
      await release.promise;
      return { content: "done" };
    });
    const { messages, methods } = memory();
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "wait", input: {} }), textTurn("ok")],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [wait],
      historyStore: defineHistoryStore(methods),
    });
    const running = agent.prompt("go");
    await started.promise;

    await expect(agent.replaceHistory(earlier)).rejects.toBeInstanceOf(ConcurrentQueryError);
    release.resolve();
    const result = await running;
    expect(result.subtype).toBe("success");
    expect(messages).toHaveLength(4);
    expect((await agent.getHistory())[0]).toEqual({ role: "user", content: "go" });
  });

  it("replaceHistory() before the first query suppresses the lazy load", async () => {
    const path = join(dir, "session.jsonl");
    await writeJsonl(path, [
      { role: "user", content: "OLD" },
      { role: "assistant", content: [{ type: "text", text: "OLD" }] },
    ]);
    const { store, calls } = counted(createJsonlHistoryStore({ path }));
    const server = await mockServer([textTurn("Your name is Ada.")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", historyStore: store });

    await agent.replaceHistory(earlier);
    await agent.prompt("What is my name?");
    expect(calls.load).toBe(0);
    expect(plainMessages(server.requests[0]!.body.messages)).toEqual([
      ...earlier,
      { role: "user", content: "What is my name?" },
    ]);
    expect(JSON.stringify(await messagesIn(path))).not.toContain("OLD");
    expect(await messagesIn(path)).toHaveLength(4);
  });
});

describe("compaction and the store (C25)", () => {
  it("compaction replaces the stored history with the compacted one", async () => {
    const path = join(dir, "session.jsonl");
    const small = { input_tokens: 100, output_tokens: 10 };
    const big = { input_tokens: 150_000, output_tokens: 10 };
    const server = await mockServer([
      toolTurn({ name: "add", input: { a: 1, b: 1 } }, { usage: small }),
      toolTurn({ name: "add", input: { a: 2, b: 2 } }, { usage: small }),
      toolTurn({ name: "add", input: { a: 3, b: 3 } }, { usage: big }),
      textTurn("SUMMARY: three sums computed.", { usage: small }),
      textTurn("All done.", { usage: small }),
    ]);
    const { store, calls } = counted(createJsonlHistoryStore({ path }));
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [add],
      historyStore: store,
      autoCompact: { thresholdTokens: 100_000, keepRecentMessages: 3 },
    });
    await agent.prompt("Compute three sums.");

    expect(calls.replace).toBe(1);
    const stored = await messagesIn(path);
    expect(stored).toEqual(await agent.getHistory());
    expect(JSON.stringify(stored[0])).toContain("SUMMARY: three sums computed.");
    expect(JSON.stringify(stored)).not.toContain("Compute three sums.");
  });
});

describe("history store failures (C25)", () => {
  const failingAppend = (): HistoryStoreMethods => ({
    load: () => [],
    append: () => {
      throw new Error("disk full");
    },
    replace: () => {},
  });

  it("a throwing append is swallowed by default: the query succeeds and the history stays in memory", async () => {
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "add", input: { a: 1, b: 1 } }), textTurn("2")],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [add],
      historyStore: defineHistoryStore(failingAppend()),
    });
    const result = await agent.prompt("1+1?");
    expect(result).toMatchObject({ subtype: "success", result: "2" });
    const history = await agent.getHistory();
    expect(history.map(message => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("failOnError: true in the options argument propagates the append error out of prompt()", async () => {
    const client = createScriptedModelClient({ script: [textTurn("never")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: defineHistoryStore(failingAppend(), { failOnError: true }),
    });
    await expect(agent.prompt("hi")).rejects.toThrow("disk full");
  });

  it("failOnError: true beside the methods propagates the append error out of query()", async () => {
    const client = createScriptedModelClient({ script: [textTurn("never")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: defineHistoryStore({ ...failingAppend(), failOnError: true }),
    });
    await expect(collect(agent.query("hi"))).rejects.toThrow("disk full");
  });

  it("createJsonlHistoryStore({ path: <a directory>, failOnError: true }) makes the query reject", async () => {
    const client = createScriptedModelClient({ script: [textTurn("never")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: createJsonlHistoryStore({ path: dir, failOnError: true }),
    });
    await expect(agent.prompt("hi")).rejects.toMatchObject({ code: "EISDIR" });
  });

  it("createJsonlHistoryStore({ path: <a directory> }) without failOnError is swallowed", async () => {
    const client = createScriptedModelClient({ script: [textTurn("fine")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      historyStore: createJsonlHistoryStore({ path: dir }),
    });
    expect(await agent.prompt("hi")).toMatchObject({ subtype: "success", result: "fine" });
    expect(await agent.getHistory()).toHaveLength(2);
  });
});

describe("defineHistoryStore validation (C25)", () => {
  const methods = (): HistoryStoreMethods => ({ load: () => [], append: () => {}, replace: () => {} });

  it.each(["load", "append", "replace"] as const)(
    "a missing %s method throws InvalidOptionError naming it",
    key => {
      const partial: Partial<HistoryStoreMethods> = methods();
      delete partial[key];
      const define = () => defineHistoryStore(partial as HistoryStoreMethods);
      expect(define).toThrow(InvalidOptionError);
      expect(define).toThrow(`"${key}" must be a function`);
    },
  );

  it("an unknown key beside the methods throws the strict unknown-option message", () => {
    expect(() => defineHistoryStore({ ...methods(), flush: () => {} } as never)).toThrow(
      /defineHistoryStore\(\): unknown option "flush"/,
    );
  });

  it("an unknown key in the options argument throws the strict unknown-option message", () => {
    expect(() => defineHistoryStore(methods(), { failOnErorr: true } as never)).toThrow(
      /defineHistoryStore\(\) options: unknown option "failOnErorr"/,
    );
  });

  it("returns an object with exactly load, append, replace and close (no failOnError field)", () => {
    const methodsOnly = ["append", "close", "load", "replace"];
    expect(Object.keys(defineHistoryStore(methods(), { failOnError: true })).sort()).toEqual(methodsOnly);
    expect(Object.keys(defineHistoryStore({ ...methods(), failOnError: true })).sort()).toEqual(methodsOnly);
    expect(
      Object.keys(createJsonlHistoryStore({ path: join(dir, "x.jsonl"), failOnError: true })).sort(),
    ).toEqual(methodsOnly);
  });

  it("a plain object store not made by defineHistoryStore is rejected by createBareAgent", () => {
    const plain = { load: async () => [], append: async () => {}, replace: async () => {} } as HistoryStore;
    const create = () =>
      createBareAgent({ model: "m", modelClient: createScriptedModelClient(), historyStore: plain });
    expect(create).toThrow(InvalidOptionError);
    expect(create).toThrow(/defineHistoryStore/);
  });
});

describe("getHistory (C25)", () => {
  it("returns a copy: mutating it does not affect the agent", async () => {
    const client = createScriptedModelClient({ script: [textTurn("hello"), textTurn("again")] });
    const agent = createBareAgent({ model: "m", modelClient: client });
    await agent.prompt("hi");
    const before = await agent.getHistory();

    const copy = await agent.getHistory();
    copy.push({ role: "user", content: "injected" });
    copy[0]!.content = "mutated";
    (copy[1]!.content[0] as { text: string }).text = "mutated";

    expect(await agent.getHistory()).toEqual(before);
    await agent.prompt("next");
    expect(client.requests[1]!.messages.slice(0, 2)).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: [expect.objectContaining({ type: "text", text: "hello" })] },
    ]);
  });

  it("loads from the store first when called before any query, and the query does not load again", async () => {
    const { store, calls } = counted(memory(earlier).methods);
    const client = createScriptedModelClient({ script: [textTurn("Ada.")] });
    const agent = createBareAgent({ model: "m", modelClient: client, historyStore: store });

    expect(await agent.getHistory()).toEqual(earlier);
    expect(calls.load).toBe(1);
    await agent.prompt("What is my name?");
    expect(calls.load).toBe(1);
    expect(client.requests[0]!.messages).toHaveLength(3);
  });

  it("a query started while getHistory() is still loading does not load the store a second time", async () => {
    const { methods } = memory(earlier);
    const { store, calls } = counted({
      ...methods,
      load: async () => {
        await new Promise(resolve => setTimeout(resolve, 20));
        return methods.load();
      },
    });
    const client = createScriptedModelClient({ script: [textTurn("Ada.")] });
    const agent = createBareAgent({ model: "m", modelClient: client, historyStore: store });

    const [history] = await Promise.all([agent.getHistory(), agent.prompt("What is my name?")]);
    expect(history.slice(0, 2)).toEqual(earlier);
    expect(calls.load).toBe(1);
    expect(client.requests[0]!.messages).toHaveLength(3);
  });

  it("replaceHistory() while a lazy load is pending is not overwritten by the load", async () => {
    const { methods } = memory(earlier);
    const slow = defineHistoryStore({
      ...methods,
      load: async () => {
        const stored = methods.load(); // read now, delivered late (a slow database)
        await new Promise(resolve => setTimeout(resolve, 20));
        return stored;
      },
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient(),
      historyStore: slow,
    });
    const installed: ModelMessage[] = [{ role: "user", content: "installed by the host" }];

    const pending = agent.getHistory();
    await agent.replaceHistory(installed);
    await pending;
    expect(await agent.getHistory()).toEqual(installed);
  });
});

describe("dangling tool_use repair (C25)", () => {
  it("answers a stored trailing tool_use with an is_error tool_result before the next query, and stores it", async () => {
    const path = join(dir, "crashed.jsonl");
    const crashed: ModelMessage[] = [
      { role: "user", content: "Add 1 and 2." },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_dangling", name: "add", input: { a: 1, b: 2 } }],
      },
    ];
    await writeJsonl(path, crashed);
    const server = await mockServer([textTurn("Let me retry.")]);
    const agent = createBareAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [add],
      historyStore: createJsonlHistoryStore({ path }),
    });
    await agent.prompt("Continue.");

    const repair = {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_dangling", is_error: true, content: expect.any(String) },
      ],
    };
    const sent = plainMessages(server.requests[0]!.body.messages);
    expect(sent).toHaveLength(4);
    expect(sent[2]).toEqual(repair);
    expect(sent[3]).toEqual({ role: "user", content: "Continue." });

    const stored = await messagesIn(path);
    expect(stored.slice(0, 2)).toEqual(crashed);
    expect(stored[2]).toEqual(repair);
    expect(stored.map(message => message.role)).toEqual(["user", "assistant", "user", "user", "assistant"]);
  });
});

describe("createJsonlHistoryStore paths (C25)", () => {
  it("creates missing parent directories on the first append", async () => {
    const path = join(dir, "a", "b", "session.jsonl");
    const store = createJsonlHistoryStore({ path });
    expect(await store.load()).toEqual([]);
    await store.append(earlier[0]!);
    expect(await messagesIn(path)).toEqual([earlier[0]]);
  });
});
