import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  createBareAgent,
  InvalidOptionError,
  type ToolDefinition,
  type ToolSource,
  tool,
} from "../src/index.js";

/** A hand-driven ToolSource: the shape an MCP connection gives its tools. */
class ListSource implements ToolSource {
  readonly id = 'test source "lib"';
  #version = 0;
  #tools: ToolDefinition[] = [];
  settle: Promise<void> | undefined;
  constructor(names: string[]) {
    this.set(names);
  }
  set(names: string[]): void {
    this.#version += 1;
    this.#tools = names.map(name => ({
      ...tool(name, `tool ${name}`, z.object({}), async () => ({ content: `${name} v${this.#version}` })),
      source: this,
    }));
  }
  version(): number {
    return this.#version;
  }
  tools(): ToolDefinition[] {
    return this.#tools;
  }
  settled(): Promise<void> {
    return this.settle ?? Promise.resolve();
  }
}

const names = (request: { tools: Array<{ name: string }> }) => request.tools.map(spec => spec.name);
const local = tool("local", "a plain tool", z.object({}), async () => ({ content: "local" }));

describe("ToolSource: tools whose list changes during a session (M1 list_changed seam)", () => {
  it("re-reads a source whose version moved before the next model request, in place of its old tools", async () => {
    const source = new ListSource(["lib_a", "lib_b"]);
    const model = createScriptedModelClient({
      script: [
        toolTurn({ name: "lib_a", input: {} }),
        toolTurn({ name: "lib_c", input: {} }),
        textTurn("done"),
      ],
    });
    const agent = createBareAgent({ model: "m", modelClient: model, tools: [local, ...source.tools()] });
    // The tool call of turn 1 changes the list (as an MCP server announcing list_changed would).
    const original = source.tools()[0]!.handler;
    (source.tools()[0] as { handler: unknown }).handler = async (input: unknown, extra: never) => {
      source.set(["lib_c", "lib_a"]);
      return original(input, extra);
    };
    const result = await agent.prompt("go");
    expect(result.subtype).toBe("success");
    expect(names(model.requests[0]!)).toEqual(["local", "lib_a", "lib_b"]);
    expect(names(model.requests[1]!)).toEqual(["local", "lib_c", "lib_a"]);
    // The new tool was callable at once, and answered from the new list.
    expect(JSON.stringify(model.requests[2]!.messages.at(-1))).toContain("lib_c v2");
  });

  it("leaves out tools the host filtered out of the source's list, after a refresh too", async () => {
    const source = new ListSource(["lib_read", "lib_delete"]);
    const model = createScriptedModelClient({ script: [textTurn("one"), textTurn("two")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: model,
      tools: source.tools().filter(definition => definition.name !== "lib_delete"),
    });
    await agent.prompt("first");
    source.set(["lib_read", "lib_delete", "lib_new"]);
    await agent.prompt("second");
    expect(names(model.requests[0]!)).toEqual(["lib_read"]);
    expect(names(model.requests[1]!)).toEqual(["lib_read", "lib_new"]);
  });

  it("waits for a change the source is still fetching (settled) before building the request", async () => {
    const source = new ListSource(["lib_a"]);
    const model = createScriptedModelClient({ script: [textTurn("ok")] });
    const agent = createBareAgent({ model: "m", modelClient: model, tools: source.tools() });
    source.settle = new Promise(resolve =>
      setTimeout(() => {
        source.set(["lib_b"]);
        resolve();
      }, 20),
    );
    await agent.prompt("go");
    expect(names(model.requests[0]!)).toEqual(["lib_b"]);
  });

  it("a change that collides with another tool is a clear error; the agent keeps its previous tools", async () => {
    const source = new ListSource(["lib_a"]);
    const model = createScriptedModelClient({ script: [textTurn("after")] });
    const agent = createBareAgent({ model: "m", modelClient: model, tools: [local, ...source.tools()] });
    source.set(["lib_a", "local"]);
    const failure = await agent.prompt("go").catch(error => error);
    expect(failure).toBeInstanceOf(InvalidOptionError);
    expect(failure.message).toContain('The tool list of test source "lib" changed');
    expect(failure.message).toContain('two tools are named "local"');
    expect(model.requests).toHaveLength(0);
    // The rejected version is not retried: the next query runs with the tools the agent had.
    const next = await agent.prompt("again");
    expect(next.result).toBe("after");
    expect(names(model.requests[0]!)).toEqual(["local", "lib_a"]);
  });

  it("a source that adds tools to an agent through addTools() is followed too", async () => {
    const source = new ListSource(["lib_a"]);
    const model = createScriptedModelClient({ script: [textTurn("one")] });
    const agent = createBareAgent({ model: "m", modelClient: model, tools: [local] });
    agent.addTools([...source.tools()]);
    source.set(["lib_b"]);
    await agent.prompt("go");
    expect(names(model.requests[0]!)).toEqual(["local", "lib_b"]);
  });
});
