// Spec sections "Pass outputFormat", thinkingConfig / reasoningEffort and "Multimodal Input" (C5–C8).
import { createAgent, InvalidOptionError } from "agent-lattice";
import { textTurn } from "agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { mockProvider, unmarked } from "./helpers.js";

describe("spec: outputFormat (C5)", () => {
  it('"json" and json_schema are sent as output_config.format; the final text comes back unchanged', async () => {
    const server = await mockProvider([textTurn('{"greeting":"hi"}'), textTurn('{"answer": 4}')]);
    const agent = createAgent({ apiKey: "test-key", baseURL: server.url, model: "claude-sonnet-4-6" });

    const jsonResult = await agent.prompt("Return JSON only.", {
      outputFormat: "json",
    });

    const result = await agent.prompt("Return the answer to 2 + 2.", {
      outputFormat: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: {
            answer: { type: "number" },
          },
          required: ["answer"],
          additionalProperties: false,
        },
      },
    });

    expect(jsonResult.result).toBe('{"greeting":"hi"}');
    expect(result.result).toBe('{"answer": 4}');
    expect(result.structuredResult).toBeUndefined();
    expect(server.requests[0]!.body.output_config).toEqual({
      format: { type: "json_schema", schema: { type: "object" } },
    });
    expect(server.requests[1]!.body.output_config).toEqual({
      format: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: { answer: { type: "number" } },
          required: ["answer"],
          additionalProperties: false,
        },
      },
    });
  });

  it("is not sent when not set, and an agent-level default applies to every query", async () => {
    const server = await mockProvider([textTurn("plain"), textTurn("{}")]);
    await createAgent({ apiKey: "k", baseURL: server.url, model: "m" }).prompt("x");
    await createAgent({ apiKey: "k", baseURL: server.url, model: "m", outputFormat: "json" }).prompt("y");
    expect(server.requests[0]!.body).not.toHaveProperty("output_config");
    expect(server.requests[1]!.body.output_config).toEqual({
      format: { type: "json_schema", schema: { type: "object" } },
    });
  });

  it("a malformed outputFormat throws with the accepted forms", () => {
    expect(() => createAgent({ apiKey: "k", model: "m", outputFormat: { type: "json" } as never })).toThrow(
      /outputFormat must be "json" or \{ type: "json_schema", schema/,
    );
  });
});

describe("spec: thinkingConfig (C6)", () => {
  it("agent default adaptive; a query override with a budget capped at maxTokens - 1; disabled sent explicitly", async () => {
    const server = await mockProvider([textTurn("a"), textTurn("b"), textTurn("c"), textTurn("d")]);
    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "claude-sonnet-4-6",
      thinkingConfig: { type: "adaptive" },
      maxTokens: 4_000,
    });

    await agent.prompt("Default.");
    const result = await agent.prompt("Solve this carefully.", {
      thinkingConfig: { type: "enabled", budgetTokens: 8_000 },
    });
    await agent.prompt("Small budget.", { thinkingConfig: { type: "enabled", budgetTokens: 1_024 } });
    await agent.prompt("Off.", { thinkingConfig: { type: "disabled" } });

    expect(result.subtype).toBe("success");
    expect(server.requests.map(r => r.body.thinking)).toEqual([
      { type: "adaptive" },
      { type: "enabled", budget_tokens: 3_999 },
      { type: "enabled", budget_tokens: 1_024 },
      { type: "disabled" },
    ]);
  });

  it("sends no thinking parameter when none is configured", async () => {
    const server = await mockProvider([textTurn("a")]);
    await createAgent({ apiKey: "k", baseURL: server.url, model: "deepseek-v4-flash" }).prompt("x");
    expect(server.requests[0]!.body).not.toHaveProperty("thinking");
  });

  it("rejects a malformed thinkingConfig at assembly and per query", async () => {
    expect(() =>
      createAgent({ apiKey: "k", model: "m", thinkingConfig: { type: "enabled" } as never }),
    ).toThrow(InvalidOptionError);
    const agent = createAgent({ apiKey: "k", model: "m" });
    await expect(agent.prompt("x", { thinkingConfig: { type: "budget" } as never })).rejects.toThrow(
      /QueryOptions\.thinkingConfig/,
    );
  });
});

describe("spec: reasoningEffort (C7)", () => {
  it("is sent as top-level reasoning_effort; a query value overrides the agent default; omitted → not sent", async () => {
    const server = await mockProvider([textTurn("a"), textTurn("b"), textTurn("c")]);
    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "kimi-k3",
      reasoningEffort: "high",
    });

    await agent.prompt("Default effort.");
    const result = await agent.prompt("Solve this carefully.", {
      reasoningEffort: "low",
    });
    await createAgent({ apiKey: "k", baseURL: server.url, model: "kimi-k3" }).prompt("none");

    expect(result.subtype).toBe("success");
    expect(server.requests[0]!.body.reasoning_effort).toBe("high");
    expect(server.requests[1]!.body.reasoning_effort).toBe("low");
    expect(server.requests[2]!.body).not.toHaveProperty("reasoning_effort");
    expect(server.requests[1]!.body).not.toHaveProperty("thinking");
  });

  it('accepts only "low", "high" and "max"', () => {
    expect(() => createAgent({ apiKey: "k", model: "m", reasoningEffort: "medium" as never })).toThrow(
      'AgentOptions.reasoningEffort must be "low", "high" or "max"; got "medium".',
    );
  });
});

describe("spec: Multimodal Input (C8)", () => {
  it("text, base64 image and document blocks reach the provider unchanged", async () => {
    const server = await mockProvider([textTurn("A screenshot of a login form.")]);
    const agent = createAgent({ apiKey: "test-key", baseURL: server.url, model: "claude-sonnet-4-6" });
    const imageBase64 = Buffer.from("fake png bytes").toString("base64");

    const result = await agent.prompt([
      { type: "text", text: "Summarize this screenshot." },
      {
        type: "image",
        source: {
          type: "base64",
          media_type: "image/png",
          data: imageBase64,
        },
      },
    ]);

    expect(result.result).toBe("A screenshot of a login form.");
    expect(unmarked(server.requests[0]!.body.messages)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Summarize this screenshot." },
          { type: "image", source: { type: "base64", media_type: "image/png", data: imageBase64 } },
        ],
      },
    ]);
  });

  it("document blocks (base64 PDF and plain text) are sent as given", async () => {
    const server = await mockProvider([textTurn("Summary.")]);
    const agent = createAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const pdf = Buffer.from("%PDF-1.4 fake").toString("base64");
    const content = [
      {
        type: "document" as const,
        source: { type: "base64" as const, media_type: "application/pdf", data: pdf },
        title: "Spec",
      },
      {
        type: "document" as const,
        source: { type: "text" as const, media_type: "text/plain" as const, data: "Plain notes." },
      },
      { type: "text" as const, text: "Summarize both." },
    ];
    await agent.prompt(content);
    expect(unmarked(server.requests[0]!.body.messages[0].content)).toEqual(content);
  });
});
