// Supervisor delegation (C22, C23, D1–D6): parent and child talk to one mock server in one scripted conversation.
import {
  createScriptedModelClient,
  hang,
  type MockScriptItem,
  systemText,
  textTurn,
  toolTurn,
} from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  type AgentLike,
  agentTool,
  createAgentFactory,
  createBareAgent,
  defineContextTracer,
  delegateTool,
  type SDKMessage,
  type SDKResultMessage,
  tool,
} from "../src/index.js";
import { collect, contentText, mockServer, unmarked } from "./helpers.js";

const { defineAgent } = createAgentFactory();

const reviewSchema = z.object({ approved: z.boolean(), issues: z.array(z.string()) });
type Body = {
  system?: string;
  messages: Array<{ role: string; content: any }>;
  tools?: Array<{ name: string; description: string; input_schema: any }>;
};

/** Serves parent and child from one script; the child is recognised by its system prompt. */
async function conversation(parent: MockScriptItem[], child: MockScriptItem[]) {
  const server = await mockServer();
  server.respondWith(request => {
    const queue = (systemText(request.body) ?? "").startsWith("CHILD") ? child : parent;
    const next = queue.shift();
    if (!next) throw new Error("script exhausted");
    return next;
  });
  const bodies = (who: "parent" | "child") =>
    server.requests
      .map(r => r.body as Body)
      .filter(b => (systemText(b) ?? "").startsWith("CHILD") === (who === "child"));
  return { server, bodies };
}

const base = (url: string) => ({ apiKey: "k", baseURL: url, model: "m" });
const lastToolResult = (body: Body) => body.messages.at(-1)!.content[0];

describe("defineAgent / spawn (C23)", () => {
  it("a spec spawns a fresh session per call; a live session remembers", async () => {
    const { server, bodies } = await conversation(
      [
        toolTurn({ name: "review", input: { task: "first" } }),
        toolTurn({ name: "review", input: { task: "second" } }),
        textTurn("done"),
        toolTurn({ name: "review", input: { task: "first" } }),
        toolTurn({ name: "review", input: { task: "second" } }),
        textTurn("done"),
      ],
      [textTurn("r1"), textTurn("r2"), textTurn("r3"), textTurn("r4")],
    );
    const reviewerSpec = defineAgent({
      ...base(server.url),
      name: "reviewer",
      systemPrompt: "CHILD reviewer",
    });
    const fresh = createBareAgent({ ...base(server.url), tools: [agentTool("review", reviewerSpec)] });
    await fresh.prompt("go");
    expect(bodies("child").map(b => b.messages.length)).toEqual([1, 1]);

    const session = reviewerSpec.spawn();
    const live = createBareAgent({ ...base(server.url), tools: [agentTool("review", session)] });
    await live.prompt("go");
    expect(bodies("child").map(b => b.messages.length)).toEqual([1, 1, 1, 3]);
    expect(bodies("child")[3]!.messages[0]!.content).toBe("first");
    expect(session.sessionId).not.toBe(reviewerSpec.spawn().sessionId);
  });

  it("the generated description states which semantics the target has", () => {
    const spec = defineAgent({ apiKey: "k", model: "m", name: "reviewer" });
    expect(agentTool("a", spec, { description: "Ask the reviewer." }).description).toBe(
      "Ask the reviewer. Each call starts a fresh session with no memory of earlier calls, so every task must be self-contained.",
    );
    expect(agentTool("b", spec.spawn()).description).toBe(
      'Delegate a task to the "b" agent and get its result. Calls go to one long-lived session that remembers earlier tasks.',
    );
  });

  it("defineAgent validates options strictly and spawns independent sessions", () => {
    expect(() => defineAgent({ apiKey: "k", model: "m", bogus: 1 } as never)).toThrow(
      'AgentOptions: unknown option "bogus"',
    );
    const spec = defineAgent({ apiKey: "k", model: "m" });
    expect(spec.kind).toBe("agent_spec");
    expect(Object.isFrozen(spec.options)).toBe(true);
  });
});

describe("agentTool() input and options (D1, D6, C16, C17)", () => {
  it("offers the default input shape; delegateTool has no mode", () => {
    const spec = defineAgent({ apiKey: "k", model: "m" });
    const ask = agentTool("helper", spec);
    expect(ask.kind).toBe("agent_tool");
    expect(Object.keys(ask.inputSchema.properties as object)).toEqual([
      "mode",
      "task",
      "expectedOutput",
      "acceptanceCriteria",
      "workspaceGrants",
    ]);
    expect(ask.inputSchema.required).toEqual(["task"]);
    const delegate = delegateTool("helper", spec);
    expect(Object.keys(delegate.inputSchema.properties as object)).toEqual([
      "task",
      "expectedOutput",
      "acceptanceCriteria",
      "workspaceGrants",
    ]);
  });

  it('strict options with the agentTool("<name>") / delegateTool("<name>") prefix; metadata passes through', () => {
    const spec = defineAgent({ apiKey: "k", model: "m" });
    expect(() => agentTool("review", spec, { bogusOption: 1 } as never)).toThrow(
      'agentTool("review"): unknown option "bogusOption". Check for a typo, or upgrade the SDK if this option was added in a newer version.',
    );
    expect(() => delegateTool("review", spec, { bogusOption: 1 } as never)).toThrow(
      'delegateTool("review"): unknown option "bogusOption". Check for a typo, or upgrade the SDK if this option was added in a newer version.',
    );
    expect(agentTool("a", spec, { metadata: { contractVersion: 3 } }).metadata).toEqual({
      contractVersion: 3,
    });
    expect("metadata" in agentTool("a", spec)).toBe(false);
    expect(() => agentTool("a", {} as never)).toThrow(/target must be an agent/);
  });

  it("renders task, expected output and criteria into the child's prompt", async () => {
    const { server, bodies } = await conversation(
      [
        toolTurn({
          name: "helper",
          input: { task: "Audit auth.", expectedOutput: "A list.", acceptanceCriteria: ["cites files"] },
        }),
        textTurn("ok"),
      ],
      [textTurn("findings")],
    );
    const parent = createBareAgent({
      ...base(server.url),
      tools: [agentTool("helper", defineAgent({ ...base(server.url), systemPrompt: "CHILD" }))],
    });
    await parent.prompt("go");
    expect(contentText(bodies("child")[0]!.messages[0]!.content)).toBe(
      "Audit auth.\n\nExpected output:\nA list.\n\nAcceptance criteria:\n- cites files",
    );
    expect(lastToolResult(bodies("parent")[1]!)).toMatchObject({ content: "findings" });
    expect(lastToolResult(bodies("parent")[1]!).is_error).toBeUndefined();
  });

  it("handoff and observe outside a team return a clear unsupported result", async () => {
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "helper", input: { mode: "handoff", task: "x" } }), textTurn("ok")],
    });
    const child = createBareAgent({ model: "m", modelClient: createScriptedModelClient() });
    await createBareAgent({ model: "m", modelClient: client, tools: [agentTool("helper", child)] }).prompt(
      "go",
    );
    const block = client.requests[1]!.messages.at(-1)!.content as Array<{
      content: string;
      is_error: boolean;
    }>;
    expect(block[0]).toMatchObject({ is_error: true });
    expect(block[0]!.content).toMatch(/^unsupported_mode: mode "handoff" needs a team runtime/);
  });

  it("grants: only those covered by the caller's own grants pass on, into the child's permissions and prompt", async () => {
    const seen: unknown[] = [];
    const childClient = createScriptedModelClient({ script: [textTurn("wrote it")] });
    const child = createBareAgent({ model: "m", modelClient: childClient });
    const spy: AgentLike = {
      query: (prompt, options) => {
        seen.push(options?.permissions);
        return child.query(prompt, options);
      },
      prompt: (prompt, options) => child.prompt(prompt, options),
      interrupt: () => child.interrupt(),
    };
    const client = createScriptedModelClient({
      script: [
        toolTurn({
          name: "backend",
          input: { task: "x", workspaceGrants: [{ root: "/srv/app/api", access: ["write"], reason: "API" }] },
        }),
        toolTurn({
          name: "backend",
          input: { task: "y", workspaceGrants: [{ root: "/srv/other", access: ["write"] }] },
        }),
        textTurn("ok"),
      ],
    });
    const parent = createBareAgent({ model: "m", modelClient: client, tools: [agentTool("backend", spy)] });
    await parent.prompt("go", {
      permissions: { workspaceGrants: [{ root: "/srv/app", access: ["write"] }] },
    });
    expect(seen).toEqual([{ workspaceGrants: [{ root: "/srv/app/api", access: ["write"], reason: "API" }] }]);
    expect(contentText(childClient.requests[0]!.messages[0]!.content)).toContain("- /srv/app/api (API)");
    const rejection = JSON.parse(
      (client.requests[2]!.messages.at(-1)!.content as Array<{ content: string }>)[0]!.content,
    );
    expect(rejection).toMatchObject({
      code: "grant_not_covered",
      rejectedRoots: ["/srv/other"],
      yourGrants: ["/srv/app"],
    });
  });
});

describe("grant coverage is decided on physical paths", () => {
  it("a symlink inside a held root cannot pass on a grant to where it points", async () => {
    const { mkdtemp, mkdir, symlink, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const base = await mkdtemp(join(tmpdir(), "al-grants-"));
    try {
      await mkdir(join(base, "held/api"), { recursive: true });
      await mkdir(join(base, "secret"));
      await symlink(join(base, "secret"), join(base, "held/escape"));
      const seen: unknown[] = [];
      const child = createBareAgent({
        model: "m",
        modelClient: createScriptedModelClient({ script: [textTurn("ok"), textTurn("ok")] }),
      });
      const spy: AgentLike = {
        query: (prompt, options) => {
          seen.push(options?.permissions?.workspaceGrants?.map(grant => grant.root));
          return child.query(prompt, options);
        },
        prompt: (prompt, options) => child.prompt(prompt, options),
        interrupt: () => child.interrupt(),
      };
      const client = createScriptedModelClient({
        script: [
          toolTurn({
            name: "m1",
            input: { task: "x", workspaceGrants: [{ root: join(base, "held/escape"), access: ["write"] }] },
          }),
          toolTurn({
            name: "m1",
            input: { task: "y", workspaceGrants: [{ root: join(base, "held/api/new"), access: ["write"] }] },
          }),
          textTurn("done"),
        ],
      });
      const parent = createBareAgent({ model: "m", modelClient: client, tools: [agentTool("m1", spy)] });
      await parent.prompt("go", {
        permissions: { workspaceGrants: [{ root: join(base, "held"), access: ["write"] }] },
      });
      const first = JSON.parse(
        (client.requests[1]!.messages.at(-1)!.content as Array<{ content: string }>)[0]!.content,
      );
      expect(first).toMatchObject({ code: "grant_not_covered" });
      const { realpathSync } = await import("node:fs");
      expect(seen).toEqual([[join(realpathSync(base), "held/api/new")]]);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe("output contracts (D2–D4)", () => {
  it("inherits the child's outputSchema: ask returns the validated JSON, and the description says so", async () => {
    const { server, bodies } = await conversation(
      [toolTurn({ name: "review", input: { task: "Audit." } }), textTurn("Thanks.")],
      [toolTurn({ name: "submit_output", input: { approved: false, issues: ["null check"] } })],
    );
    const child = createBareAgent({ ...base(server.url), systemPrompt: "CHILD", outputSchema: reviewSchema });
    const review = agentTool("review", child, { description: "Ask the reviewer to audit a change." });
    expect(review.description).toContain("It returns the target's validated structured output as JSON.");
    await createBareAgent({ ...base(server.url), tools: [review] }).prompt("go");
    expect(lastToolResult(bodies("parent")[1]!)).toMatchObject({
      content: '{"approved":false,"issues":["null check"]}',
    });
  });

  it("a child that ends without submitting gives child_output_invalid:", async () => {
    const { server, bodies } = await conversation(
      [toolTurn({ name: "review", input: { task: "Audit." } }), textTurn("retrying later")],
      [textTurn("I approve.")],
    );
    const child = defineAgent({ ...base(server.url), systemPrompt: "CHILD", outputSchema: reviewSchema });
    await createBareAgent({ ...base(server.url), tools: [agentTool("review", child)] }).prompt("go");
    const block = lastToolResult(bodies("parent")[1]!);
    expect(block.is_error).toBe(true);
    expect(block.content).toMatch(/^child_output_invalid: the child run ended with error_missing_output/);
  });

  it("an explicit copy must match the target's declaration, by reference or by JSON Schema, or assembly throws", () => {
    const child = defineAgent({ apiKey: "k", model: "m", outputSchema: reviewSchema });
    expect(() => agentTool("review", child, { outputSchema: reviewSchema })).not.toThrow();
    expect(() =>
      agentTool("review", child, {
        outputSchema: z.object({ approved: z.boolean(), issues: z.array(z.string()) }),
      }),
    ).not.toThrow();
    expect(() => agentTool("review", child, { outputSchema: z.object({ approved: z.boolean() }) })).toThrow(
      "agentTool(\"review\"): outputSchema does not match the target's declared outputSchema (compared by reference, then by derived JSON Schema). Share one schema instance between the child agent and this tool, or omit the tool's outputSchema: it is inherited from the target.",
    );
    expect(() =>
      delegateTool("review", child.spawn(), { outputSchema: z.object({ ok: z.boolean() }) }),
    ).toThrow(/^delegateTool\("review"\): outputSchema does not match/);
  });

  it("target without a schema + explicit parent schema: the child's structuredResult is validated on the parent side", async () => {
    const verdict = z.object({ verdict: z.string() });
    const conclude = (value: unknown) =>
      createBareAgent({
        model: "m",
        modelClient: createScriptedModelClient({ script: [toolTurn({ name: "conclude", input: {} })] }),
        // A custom endTurn tool with domain validation of its own.
        tools: [
          tool("conclude", "Conclude", z.object({}), async () => ({
            content: "done",
            endTurn: true,
            structuredResult: value,
          })),
        ],
      });
    for (const [value, expected] of [
      [{ verdict: "guilty" }, { content: '{"verdict":"guilty"}' }],
      [{ verdict: 3 }, { is_error: true }],
    ] as const) {
      const client = createScriptedModelClient({
        script: [toolTurn({ name: "judge", input: { task: "t" } }), textTurn("ok")],
      });
      await createBareAgent({
        model: "m",
        modelClient: client,
        tools: [agentTool("judge", conclude(value), { outputSchema: verdict })],
      }).prompt("go");
      const block = (client.requests[1]!.messages.at(-1)!.content as Array<Record<string, unknown>>)[0]!;
      expect(block).toMatchObject(expected);
      if ("is_error" in expected)
        expect(String(block.content)).toMatch(
          /^child_output_invalid: the structured result failed the schema/,
        );
    }
  });

  it("neither side declares a schema: a child's structuredResult comes back as JSON as-is, else the text", async () => {
    const child = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [toolTurn({ name: "finish", input: {} })] }),
      tools: [
        tool("finish", "Finish", z.object({}), async () => ({
          content: "text answer",
          endTurn: true,
          structuredResult: { any: ["shape"] },
        })),
      ],
    });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "ask", input: { task: "t" } }), textTurn("ok")],
    });
    await createBareAgent({ model: "m", modelClient: client, tools: [agentTool("ask", child)] }).prompt("go");
    expect((client.requests[1]!.messages.at(-1)!.content as Array<{ content: string }>)[0]!.content).toBe(
      '{"any":["shape"]}',
    );
  });
});

describe("typed delegation (D5)", () => {
  const caseInput = z.object({
    caseSummary: z.string(),
    documents: z.array(z.object({ title: z.string(), content: z.string() })),
  });

  it("inputSchema replaces the default shape; mapInput builds the child prompt; invalid input never invokes the child", async () => {
    const { server, bodies } = await conversation(
      [
        toolTurn({ name: "judge", input: { caseSummary: 42 } }),
        toolTurn({
          name: "judge",
          input: { caseSummary: "Theft.", documents: [{ title: "Report", content: "..." }] },
        }),
        textTurn("ok"),
      ],
      [textTurn("Verdict: guilty.")],
    );
    const judge = createBareAgent({ ...base(server.url), systemPrompt: "CHILD judge" });
    const judgeTool = agentTool("judge", judge, {
      description: "Judge a case from its summary and documents.",
      inputSchema: caseInput,
      mapInput: input =>
        `Case: ${input.caseSummary}\nDocuments: ${input.documents.map(d => d.title).join(", ")}`,
    });
    expect(Object.keys(judgeTool.inputSchema.properties as object)).toEqual(["caseSummary", "documents"]);
    await createBareAgent({ ...base(server.url), tools: [judgeTool] }).prompt("go");
    const rejected = lastToolResult(bodies("parent")[1]!);
    expect(rejected.is_error).toBe(true);
    expect(rejected.content).toMatch(/^Invalid input for tool "judge": caseSummary/);
    expect(bodies("child")).toHaveLength(1);
    expect(contentText(bodies("child")[0]!.messages[0]!.content)).toBe("Case: Theft.\nDocuments: Report");
  });

  it("inputSchema and mapInput must come as a pair", () => {
    const target = defineAgent({ apiKey: "k", model: "m" });
    expect(() => agentTool("judge", target, { inputSchema: caseInput })).toThrow(
      'agentTool("judge"): inputSchema and mapInput must be passed together',
    );
    expect(() => agentTool("judge", target, { mapInput: () => "x" })).toThrow(/must be passed together/);
  });

  it("mapInput may return ContentBlock[] on the direct path", async () => {
    const childClient = createScriptedModelClient({ script: [textTurn("seen")] });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "look", input: { url: "u" } }), textTurn("ok")],
    });
    const look = agentTool("look", createBareAgent({ model: "m", modelClient: childClient }), {
      inputSchema: z.object({ url: z.string() }),
      mapInput: input => [
        { type: "text", text: `Describe ${input.url}` },
        { type: "image", source: { type: "url", url: "https://example.test/a.png" } },
      ],
    });
    await createBareAgent({ model: "m", modelClient: client, tools: [look] }).prompt("go");
    expect(unmarked(childClient.requests[0]!.messages[0]!.content)).toEqual([
      { type: "text", text: "Describe u" },
      { type: "image", source: { type: "url", url: "https://example.test/a.png" } },
    ]);
  });
});

describe("nested events, usage, and propagation", () => {
  it("the parent's query streams the child's messages as agent_message events; child usage joins the parent's totals", async () => {
    const { server } = await conversation(
      [
        toolTurn({ name: "helper", input: { task: "t" } }, { usage: { input_tokens: 10, output_tokens: 1 } }),
        textTurn("ok", { usage: { input_tokens: 20, output_tokens: 2 } }),
      ],
      [textTurn("child says hi", { usage: { input_tokens: 100, output_tokens: 7 } })],
    );
    const parent = createBareAgent({
      ...base(server.url),
      tools: [agentTool("helper", defineAgent({ ...base(server.url), systemPrompt: "CHILD" }))],
    });
    const messages = await collect(parent.query("go"));
    const nested = messages.filter(
      (m): m is Extract<SDKMessage, { type: "agent_message" }> => m.type === "agent_message",
    );
    expect(nested.map(m => m.message.type)).toContain("stream_event");
    expect(nested[0]).toMatchObject({
      agent: "helper",
      session_id: parent.sessionId,
      message: { type: "system", subtype: "init" },
    });
    const childResult = nested.at(-1)!.message as SDKResultMessage;
    expect(childResult).toMatchObject({
      type: "result",
      result: "child says hi",
      usage: { input_tokens: 100, output_tokens: 7 },
    });
    // Nested events come between the parent's assistant turn and its tool results.
    const order = messages.map(m => m.type).filter(t => t !== "stream_event");
    expect(order.indexOf("agent_message")).toBeGreaterThan(order.indexOf("assistant"));
    expect(order.lastIndexOf("agent_message")).toBeLessThan(order.indexOf("user"));
    expect(messages.at(-1)).toMatchObject({ usage: { input_tokens: 130, output_tokens: 10 } });
  });

  it("a child's MaxTurnsError or APIError becomes an is_error result for the parent, not a crash", async () => {
    const failing = createBareAgent({
      model: "m",
      maxTurns: 1,
      modelClient: createScriptedModelClient({ script: [toolTurn({ name: "nothing", input: {} })] }),
    });
    const broken = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({
        script: [{ kind: "http_error", status: 500, errorType: "api_error", message: "down" }],
      }),
    });
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "a", input: { task: "t" } },
          { name: "b", input: { task: "t" } },
        ]),
        textTurn("handled"),
      ],
    });
    const result = await createBareAgent({
      model: "m",
      modelClient: client,
      tools: [agentTool("a", failing), agentTool("b", broken)],
    }).prompt("go");
    expect(result.result).toBe("handled");
    const [a, b] = client.requests[1]!.messages.at(-1)!.content as Array<{
      content: string;
      is_error: boolean;
    }>;
    expect(a).toMatchObject({
      is_error: true,
      content: expect.stringMatching(
        /^child_error: the delegated run ended with error_max_turns \(MaxTurnsError/,
      ),
    });
    expect(b).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^child_error: .*error_during_execution \(APIError/),
    });
  });

  it("aborting the parent aborts the child", async () => {
    const childClient = createScriptedModelClient({ script: [hang()] });
    const client = createScriptedModelClient({ script: [toolTurn({ name: "slow", input: { task: "t" } })] });
    const controller = new AbortController();
    const parent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [agentTool("slow", createBareAgent({ model: "m", modelClient: childClient }))],
    });
    const pending = parent.prompt("go", { signal: controller.signal });
    while (childClient.requests.length === 0) await new Promise(resolve => setTimeout(resolve, 2));
    controller.abort();
    const result = await pending;
    expect(result.subtype).toBe("error_abort");
    const history = await parent.getHistory();
    expect((history.at(-1)!.content as Array<{ content: string }>)[0]!.content).toMatch(
      /child_error: .*error_abort/,
    );
  });

  it("interrupting the parent interrupts the running child; the parent ends interrupted after the batch", async () => {
    const childClient = createScriptedModelClient({ script: [hang()] });
    const client = createScriptedModelClient({ script: [toolTurn({ name: "slow", input: { task: "t" } })] });
    const parent = createBareAgent({
      model: "m",
      modelClient: client,
      tools: [agentTool("slow", createBareAgent({ model: "m", modelClient: childClient }))],
    });
    const pending = parent.prompt("go");
    while (childClient.requests.length === 0) await new Promise(resolve => setTimeout(resolve, 2));
    expect(parent.interrupt()).toBe(true);
    expect((await pending).subtype).toBe("interrupted");
    const results = (await parent.getHistory()).at(-1)!.content as Array<{ content: string }>;
    expect(results[0]!.content).toMatch(/child_error: .*interrupted/);
  });

  it("a query's tracer and requestTimeoutMs reach the child; child events name the parent run", async () => {
    const events: Array<{ type: string; run_id: string; parent_run_id?: string; session_id: string }> = [];
    const tracer = defineContextTracer({ onEvent: event => void events.push(event) });
    const childClient = createScriptedModelClient({ script: [textTurn("child done")] });
    const child = createBareAgent({ model: "m", modelClient: childClient });
    const seenOptions: unknown[] = [];
    const spy: AgentLike = {
      query: (prompt, options) => {
        seenOptions.push({ requestTimeoutMs: options?.requestTimeoutMs, tracer: options?.tracer === tracer });
        return child.query(prompt, options);
      },
      prompt: (prompt, options) => child.prompt(prompt, options),
      interrupt: () => child.interrupt(),
    };
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "helper", input: { task: "t" } }), textTurn("ok")],
    });
    const parent = createBareAgent({ model: "m", modelClient: client, tools: [agentTool("helper", spy)] });
    await parent.prompt("go", { tracer, requestTimeoutMs: 5_000 });
    expect(seenOptions).toEqual([{ requestTimeoutMs: 5_000, tracer: true }]);
    const parentRun = events.find(e => e.session_id === parent.sessionId)!.run_id;
    const childEvents = events.filter(e => e.session_id === child.sessionId);
    expect(childEvents.map(e => e.type)).toEqual([
      "run_start",
      "user_message",
      "model_request",
      "assistant_message",
      "result",
    ]);
    expect(new Set(childEvents.map(e => e.parent_run_id))).toEqual(new Set([parentRun]));
  });

  it("a host-defined AgentLike works as a target (AgentLike composition, C22)", async () => {
    const echo: AgentLike = {
      async *query(prompt) {
        const result: SDKResultMessage = {
          type: "result",
          subtype: "success",
          is_error: false,
          result: `echo: ${String(prompt)}`,
          usage: {
            input_tokens: 0,
            output_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
          stop_reason: "end_turn",
          num_turns: 1,
          duration_ms: 0,
          session_id: "host",
        };
        yield result;
      },
      prompt: async () => {
        throw new Error("unused");
      },
      interrupt: () => false,
    };
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "echo", input: { task: "ping" } }), textTurn("ok")],
    });
    await createBareAgent({ model: "m", modelClient: client, tools: [agentTool("echo", echo)] }).prompt("go");
    expect((client.requests[1]!.messages.at(-1)!.content as Array<{ content: string }>)[0]!.content).toBe(
      "echo: ping",
    );
  });
});
