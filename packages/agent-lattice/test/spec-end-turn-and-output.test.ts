// Spec sections "End The Run From A Tool" and "Structured Output Via submit_output" (C12, C13).
import { createAgent, MissingOutputError, SUBMIT_OUTPUT_TOOL_NAME, tool } from "agent-lattice";
import { textTurn, toolTurn, turn } from "agent-lattice/testing";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { captureConsole, mockProvider } from "./helpers.js";

describe("spec: End The Run From A Tool (C12)", () => {
  const finish = tool(
    "finish",
    "Submit the final answer and end the run",
    z.object({ answer: z.string() }),
    async ({ answer }) => ({ content: answer, endTurn: true }),
  );

  it("ends with success and the tool's text as result, without calling the model again", async () => {
    const server = await mockProvider([toolTurn({ name: "finish", input: { answer: "42" } })]);
    const agent = createAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [finish] });
    const result = await agent.prompt("Answer.");
    expect(result).toMatchObject({ subtype: "success", result: "42", num_turns: 1 });
    expect(server.requests).toHaveLength(1);
    // The tool_result is in history, so the conversation stays well-formed for the next query.
    expect((await agent.getHistory()).at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", content: "42" }],
    });
  });

  it("other tools of the batch still finish and are recorded, hooks see them; the first endTurn wins", async () => {
    const seen: string[] = [];
    const slowSideEffect = tool("record", "Record", z.object({ v: z.string() }), async ({ v }) => {
      await new Promise(resolve => setTimeout(resolve, 20));
      return { content: `recorded ${v}` };
    });
    const server = await mockProvider([
      toolTurn([
        { name: "record", input: { v: "a" } },
        { name: "finish", input: { answer: "first" } },
        { name: "finish", input: { answer: "second" } },
      ]),
    ]);
    const agent = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [slowSideEffect, finish],
      hooks: { onToolResult: ({ toolName }) => void seen.push(toolName) },
    });
    const result = await agent.prompt("Go.");
    expect(result.result).toBe("first");
    expect(seen).toEqual(["record", "finish", "finish"]);
    const last = (await agent.getHistory()).at(-1) as { content: Array<{ content: string }> };
    expect(last.content.map(block => block.content)).toEqual(["recorded a", "first", "second"]);
  });

  it("structuredResult next to endTurn reaches result.structuredResult; without endTurn it is ignored", async () => {
    const conclude = tool("conclude", "Conclude", z.object({}), async () => ({
      content: "done",
      endTurn: true,
      structuredResult: { verdict: "ok", score: 3 },
    }));
    const note = tool("note", "Note", z.object({}), async () => ({
      content: "noted",
      structuredResult: { ignored: true },
    }));
    const server = await mockProvider([
      toolTurn({ name: "note", input: {} }),
      toolTurn({ name: "conclude", input: {} }),
    ]);
    const result = await createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [conclude, note],
    }).prompt("x");
    expect(result).toMatchObject({
      subtype: "success",
      result: "done",
      structuredResult: { verdict: "ok", score: 3 },
    });
  });
});

describe("spec: Structured Output Via submit_output (C13)", () => {
  const reviewSchema = z.object({
    approved: z.boolean(),
    issues: z.array(z.string()),
  });

  it("the reviewer snippet: submit_output is injected with the schema; a valid submission ends with structuredResult", async () => {
    const server = await mockProvider([
      toolTurn({ name: "submit_output", input: { approved: false, issues: ["missing null check"] } }),
    ]);
    vi.stubEnv("ANTHROPIC_API_KEY", "test-key");
    vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
    const printed = captureConsole();

    const reviewer = createAgent({
      model: "claude-sonnet-4-6",
      systemPrompt: "Review the change and submit your verdict.",
      outputSchema: reviewSchema,
    });

    const result = await reviewer.prompt("Review the patch in this workspace.");
    if (result.subtype === "success") {
      console.log(result.structuredResult); // { approved: false, issues: [...] }
    }

    vi.unstubAllEnvs();
    expect(printed).toEqual([[{ approved: false, issues: ["missing null check"] }]]);
    const submit = server.requests[0]!.body.tools.find(
      (t: { name: string }) => t.name === SUBMIT_OUTPUT_TOOL_NAME,
    );
    expect(SUBMIT_OUTPUT_TOOL_NAME).toBe("submit_output");
    expect(submit.input_schema).toEqual({
      type: "object",
      properties: { approved: { type: "boolean" }, issues: { type: "array", items: { type: "string" } } },
      required: ["approved", "issues"],
    });
  });

  it("an invalid submission goes back as an error tool_result; the corrected one ends success with the typed result", async () => {
    const server = await mockProvider([
      toolTurn({ name: "submit_output", input: { approved: "yes", issues: [] } }),
      toolTurn({ name: "submit_output", input: { approved: true, issues: [] } }),
    ]);
    const reviewer = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      outputSchema: reviewSchema,
    });
    const result = await reviewer.prompt("Review.");
    expect(result).toMatchObject({ subtype: "success", structuredResult: { approved: true, issues: [] } });
    expect(result.result).toBe('{"approved":true,"issues":[]}');
    const rejection = server.requests[1]!.body.messages.at(-1).content[0];
    expect(rejection).toMatchObject({ type: "tool_result", is_error: true });
    expect(rejection.content).toMatch(
      /^Invalid input for tool "submit_output": approved: .*expected boolean/,
    );
  });

  it("ending the turn without submit_output fails with error_missing_output and a MissingOutputError; no JSON fallback", async () => {
    const server = await mockProvider([textTurn('{"approved": true, "issues": []}')]);
    const reviewer = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      outputSchema: reviewSchema,
    });
    const result = await reviewer.prompt("Review.");
    expect(result).toMatchObject({ subtype: "error_missing_output", is_error: true });
    expect(result.error).toBeInstanceOf(MissingOutputError);
    expect(result.structuredResult).toBeUndefined();
  });

  it("submit_output mixed with other calls, or submitted twice, is rejected as submit_output_exclusive_batch and the loop continues", async () => {
    let lookups = 0;
    const lookup = tool("lookup", "Look up", z.object({}), async () => {
      lookups += 1;
      return { content: "found" };
    });
    const server = await mockProvider([
      toolTurn([
        { name: "lookup", input: {} },
        { name: "submit_output", input: { approved: true, issues: [] } },
      ]),
      toolTurn([
        { name: "submit_output", input: { approved: true, issues: [] } },
        { name: "submit_output", input: { approved: false, issues: [] } },
      ]),
      toolTurn({ name: "submit_output", input: { approved: true, issues: ["ok"] } }),
    ]);
    const reviewer = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [lookup],
      outputSchema: reviewSchema,
    });
    const result = await reviewer.prompt("Review.");
    expect(result).toMatchObject({
      subtype: "success",
      structuredResult: { approved: true, issues: ["ok"] },
    });
    expect(lookups).toBe(0);
    for (const request of server.requests.slice(1)) {
      for (const block of request.body.messages.at(-1).content) {
        expect(block.is_error).toBe(true);
        expect(JSON.parse(block.content)).toMatchObject({ code: "submit_output_exclusive_batch" });
      }
    }
  });

  it("the name is reserved: registering submit_output throws from createAgent and addTools", () => {
    const own = tool("submit_output", "Mine", z.object({}), async () => ({ content: "" }));
    expect(() => createAgent({ apiKey: "k", model: "m", outputSchema: reviewSchema, tools: [own] })).toThrow(
      /the tool name "submit_output" is reserved while outputSchema is set/,
    );
    const agent = createAgent({ apiKey: "k", model: "m", outputSchema: reviewSchema });
    expect(() => agent.addTools([own])).toThrow(/^addTools\(\): the tool name "submit_output" is reserved/);
    // Without outputSchema the name is free.
    expect(() => createAgent({ apiKey: "k", model: "m", tools: [own] })).not.toThrow();
  });

  it("a custom endTurn tool with a structuredResult that fails the schema ends error_missing_output", async () => {
    const bail = tool("bail", "Bail", z.object({}), async () => ({
      content: "bailing",
      endTurn: true,
      structuredResult: { approved: "?" },
    }));
    const server = await mockProvider([turn({ type: "tool_use", id: "t", name: "bail", input: {} })]);
    const result = await createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      tools: [bail],
      outputSchema: reviewSchema,
    }).prompt("x");
    expect(result.subtype).toBe("error_missing_output");
    expect(result.error?.message).toMatch(/structuredResult failed the outputSchema/);
  });
});
