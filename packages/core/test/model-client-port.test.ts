import { createScriptedModelClient, hang, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { createBareAgent, type ModelClient, type ModelRequest, tool } from "../src/index.js";
import { collect } from "./helpers.js";

describe("ModelClient port (C30)", () => {
  it("the scripted client from @agent-lattice/testing satisfies the port", () => {
    const client: ModelClient = createScriptedModelClient();
    expect(typeof client.create).toBe("function");
  });

  it("a custom client without stream() is called through create() and yields no stream_event", async () => {
    const requests: ModelRequest[] = [];
    const client: ModelClient = {
      async create(request) {
        requests.push(request);
        return {
          message: { role: "assistant", content: [{ type: "text", text: "custom" }] },
          stopReason: "end_turn",
        };
      },
    };
    const messages = await collect(createBareAgent({ model: "my-model", modelClient: client }).query("hi"));
    expect(messages.map(m => m.type)).toEqual(["system", "assistant", "result"]);
    expect(requests[0]).toMatchObject({
      model: "my-model",
      maxTokens: 8192,
      // The prompt-cache breakpoint reaches a custom client in the Anthropic wire format; it may drop it.
      messages: [
        { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
      ],
    });
    expect(requests[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it("a client that omits usage produces zeroed counts, not an error", async () => {
    const client: ModelClient = {
      create: async () => ({
        message: { role: "assistant", content: [{ type: "text", text: "x" }] },
        stopReason: null,
      }),
    };
    const result = await createBareAgent({ model: "m", modelClient: client }).prompt("hi");
    expect(result.subtype).toBe("success");
    expect(result.usage).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it("a client that throws an arbitrary error ends the query with a typed APIError carrying its status", async () => {
    const client = createScriptedModelClient({
      script: [{ kind: "http_error", status: 503, errorType: "api_error", message: "gateway down" }],
    });
    const result = await createBareAgent({ model: "m", modelClient: client }).prompt("hi");
    expect(result).toMatchObject({
      subtype: "error_during_execution",
      error: { code: "server_error", status: 503, type: "api_error" },
    });
  });

  it("a malformed response is reported, not crashed on", async () => {
    const client = {
      create: async () => ({ message: { role: "assistant" }, stopReason: "end_turn" }),
    } as unknown as ModelClient;
    const result = await createBareAgent({ model: "m", modelClient: client }).prompt("hi");
    expect(result.subtype).toBe("error_during_execution");
    expect(result.error?.message).toContain("message.content");
  });

  it("streams through the scripted client's stream() exactly like the server", async () => {
    const echo = tool("echo", "Echo", z.object({ v: z.string() }), async ({ v }) => ({ content: v }));
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "echo", input: { v: "x".repeat(40) } }), textTurn("done")],
    });
    const messages = await collect(
      createBareAgent({ model: "m", modelClient: client, tools: [echo] }).query("go"),
    );
    const deltas = messages.filter(m => m.type === "stream_event" && m.event.type === "content_block_delta");
    expect(deltas.length).toBeGreaterThan(2);
    expect(messages.at(-1)).toMatchObject({ subtype: "success", result: "done" });
  });

  it("the signal given to the client is aborted when the query's signal aborts", async () => {
    const controller = new AbortController();
    const client = createScriptedModelClient({ script: [hang()] });
    const pending = createBareAgent({ model: "m", modelClient: client }).prompt("hi", {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 10);
    const result = await pending;
    expect(result).toMatchObject({ subtype: "error_abort", is_error: true, error: { code: "aborted" } });
  });
});
