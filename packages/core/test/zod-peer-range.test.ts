// The zod peer range is "^3.25.76 || ^4": zod 3.25's `zod/v4` and zod 4.0/4.1 schemas have no JSON Schema method
// of their own (4.2 added `toJSONSchema()` and Standard JSON Schema), so core describes them with zod's own
// converter. Here a current zod schema with those two features hidden stands in for one of those versions; the
// packaging checks run the README program against the real zod 3.25.76 installed from the registry.
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { createBareAgent, tool } from "../src/index.js";

/** The schema as zod 3.25.76 (`zod/v4`) and zod 4.0/4.1 build it: no toJSONSchema(), no ~standard.jsonSchema. */
function asOlderZod<T extends object>(schema: T): T {
  return new Proxy(schema, {
    get(target, key, receiver) {
      if (key === "toJSONSchema") return undefined;
      if (key === "~standard") {
        const { jsonSchema: _hidden, ...standard } = Reflect.get(target, key, receiver) as object & {
          jsonSchema?: unknown;
        };
        return standard;
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

describe("zod schemas from every version of the peer range", () => {
  it("a tool's input schema is derived with zod's converter when the schema has no method for it", async () => {
    const modern = z.object({ a: z.number(), b: z.number().optional() });
    const schema = asOlderZod(modern);
    expect((schema as unknown as { toJSONSchema?: unknown }).toJSONSchema).toBeUndefined();
    const add = tool("add", "Add", schema, async ({ a, b }) => ({ content: String(a + (b ?? 0)) }));
    const model = createScriptedModelClient({
      script: [toolTurn({ name: "add", input: { a: 2, b: 3 } }), textTurn("5")],
    });
    const agent = createBareAgent({ model: "m", modelClient: model, tools: [add] });
    const result = await agent.prompt("2 + 3?");

    expect(result.result).toBe("5");
    // The same JSON Schema the schema's own method gives in zod 4.2+.
    const { $schema: _dialect, ...expected } = modern.toJSONSchema({ io: "input" });
    expect(model.requests[0]?.tools[0]?.input_schema).toEqual(expected);
    expect(expected).toMatchObject({ type: "object", required: ["a"] });
    expect(JSON.stringify(model.requests[1]?.messages.at(-1))).toContain('"content":"5"');
  });

  it("an outputSchema is described to the model the same way, not as an open object", async () => {
    const model = createScriptedModelClient({
      script: [toolTurn({ name: "submit_output", input: { answer: 4 } })],
    });
    const agent = createBareAgent({
      model: "m",
      modelClient: model,
      outputSchema: asOlderZod(z.object({ answer: z.number() })),
    });
    const result = await agent.prompt("2 + 2?");

    expect(result.structuredResult).toEqual({ answer: 4 });
    const submit = model.requests[0]?.tools.find(t => t.name === "submit_output");
    expect(submit?.input_schema).toMatchObject({
      type: "object",
      properties: { answer: { type: "number" } },
    });
  });
});
