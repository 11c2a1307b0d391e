// Schemas beyond zod: Standard Schema validators (valibot, arktype, …) and plain { parse } objects (C10, C13).
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { createBareAgent, InvalidOptionError, tool } from "../src/index.js";

/** A hand-written Standard Schema v1 validator with Standard JSON Schema, as other libraries ship them. */
function standardPoint() {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "handmade",
      validate(value: unknown) {
        const point = value as { x?: unknown; y?: unknown } | null;
        if (!point || typeof point.x !== "number" || typeof point.y !== "number") {
          return { issues: [{ message: "x and y must be numbers", path: ["x"] }] };
        }
        return { value: { x: point.x, y: point.y } };
      },
      jsonSchema: {
        input: () => ({
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { x: { type: "number" }, y: { type: "number" } },
          required: ["x", "y"],
        }),
      },
    },
  };
}

describe("schemas other than zod", () => {
  it("a Standard Schema validator works as a tool schema: JSON Schema for the model, validation before the handler", async () => {
    const seen: unknown[] = [];
    const plot = tool("plot", "Plot a point", standardPoint(), async point => {
      seen.push(point);
      return { content: "plotted" };
    });
    expect(plot.inputSchema).toEqual({
      type: "object",
      properties: { x: { type: "number" }, y: { type: "number" } },
      required: ["x", "y"],
    });
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "plot", input: { x: "1" } },
          { name: "plot", input: { x: 1, y: 2 } },
        ]),
        textTurn("done"),
      ],
    });
    await createBareAgent({ model: "m", modelClient: client, tools: [plot] }).prompt("go");
    expect(seen).toEqual([{ x: 1, y: 2 }]);
    const [bad] = client.requests[1]!.messages.at(-1)!.content as Array<{
      content: string;
      is_error: boolean;
    }>;
    expect(bad).toMatchObject({
      is_error: true,
      content: 'Invalid input for tool "plot": x: x and y must be numbers. Fix the input and call it again.',
    });
  });

  it("a Standard Schema validator works as outputSchema", async () => {
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "submit_output", input: { x: 3, y: 4 } })],
    });
    const result = await createBareAgent({
      model: "m",
      modelClient: client,
      outputSchema: standardPoint(),
    }).prompt("go");
    expect(result).toMatchObject({ subtype: "success", structuredResult: { x: 3, y: 4 } });
    expect(client.requests[0]!.tools[0]!.input_schema).toMatchObject({ required: ["x", "y"] });
  });

  it("a bare { parse } works as outputSchema: an open object schema for the model, parse() decides", async () => {
    const parser = {
      parse(input: unknown) {
        const value = input as { verdict?: unknown };
        if (value?.verdict !== "ok" && value?.verdict !== "fail")
          throw new Error('verdict must be "ok" or "fail"');
        return { verdict: value.verdict };
      },
    };
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "submit_output", input: { verdict: "maybe" } }),
        toolTurn({ name: "submit_output", input: { verdict: "ok" } }),
      ],
    });
    const result = await createBareAgent({ model: "m", modelClient: client, outputSchema: parser }).prompt(
      "go",
    );
    expect(client.requests[0]!.tools[0]!.input_schema).toEqual({ type: "object" });
    expect(result).toMatchObject({ subtype: "success", structuredResult: { verdict: "ok" } });
    const [rejected] = client.requests[1]!.messages.at(-1)!.content as Array<{ content: string }>;
    expect(rejected!.content).toContain('verdict must be "ok" or "fail"');
  });

  it("a { parse, jsonSchema } object works as a tool schema; a bare { parse } does not (the model needs the shape)", () => {
    const withSchema = {
      parse: (input: unknown) => input as { q: string },
      jsonSchema: { type: "object", properties: { q: { type: "string" } } },
    };
    expect(tool("q", "Query", withSchema, async () => ({ content: "" })).inputSchema).toEqual(
      withSchema.jsonSchema,
    );
    expect(() =>
      tool("q", "Query", { parse: (input: unknown) => input }, async () => ({ content: "" })),
    ).toThrow(InvalidOptionError);
    expect(() =>
      tool("q", "Query", { parse: (input: unknown) => input }, async () => ({ content: "" })),
    ).toThrow(/cannot derive a JSON Schema from this schema/);
  });
});
