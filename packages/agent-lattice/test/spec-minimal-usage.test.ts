// Spec sections "Minimal Usage" and the stream_event loop, run as written (only apiKey/baseURL point at the mock).
import { createAgent, createBareAgent, createBuiltinTools } from "agent-lattice";
import { systemText, textTurn } from "agent-lattice/testing";
import { describe, expect, it, vi } from "vitest";
import { captureConsole, mockProvider, plainMessages } from "./helpers.js";

describe("spec: Minimal Usage (C1, C2)", () => {
  it("createAgent + query() logs system, stream events, assistant and result", async () => {
    const server = await mockProvider([textTurn("Hello!")]);
    const printed = captureConsole();

    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
    });

    for await (const message of agent.query("Say hello")) {
      console.log(message);
    }

    const types = printed.map(([message]) => (message as { type: string }).type);
    expect(types[0]).toBe("system");
    expect(types).toContain("stream_event");
    expect(types.at(-2)).toBe("assistant");
    expect(types.at(-1)).toBe("result");
    expect(printed.at(-1)![0]).toMatchObject({ subtype: "success", result: "Hello!" });
    expect(server.requests[0]!.body).toMatchObject({ model: "deepseek-v4-flash", stream: true });
    expect(plainMessages(server.requests[0]!.body.messages)).toEqual([
      { role: "user", content: "Say hello" },
    ]);
    expect(server.requests[0]!.headers["x-api-key"]).toBe("test-key");
  });

  it("the stream_event loop writes the text as it arrives", async () => {
    const server = await mockProvider([textTurn("Hello there, incremental world!")]);
    const written: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const agent = createAgent({ apiKey: "test-key", baseURL: server.url, model: "deepseek-v4-flash" });

    for await (const message of agent.query("Say hello")) {
      if (message.type === "stream_event") {
        const event = message.event as { type: string; delta?: { text?: string } };
        if (event.type === "content_block_delta" && event.delta?.text) {
          process.stdout.write(event.delta.text);
        }
      }
    }

    vi.restoreAllMocks();
    expect(written.length).toBeGreaterThan(1);
    expect(written.join("")).toBe("Hello there, incremental world!");
  });

  it("prompt() with { stream: false } returns the result message from a non-streaming request", async () => {
    const server = await mockProvider([textTurn("Hello!")]);
    const agent = createAgent({ apiKey: "test-key", baseURL: server.url, model: "deepseek-v4-flash" });

    const result = await agent.prompt("Say hello", { stream: false });

    expect(result).toMatchObject({ type: "result", subtype: "success", result: "Hello!" });
    expect(server.requests[0]!.body.stream).toBeUndefined();
  });

  it("createBareAgent with createBuiltinTools sends exactly the host's prompt and tools", async () => {
    const server = await mockProvider([textTurn("Hello.")]);

    const agent = createBareAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      systemPrompt: "You are a concise engineering assistant.",
      tools: createBuiltinTools({
        cwd: process.cwd(),
        allowedDirectories: [process.cwd()],
      }),
    });

    for await (const message of agent.query("Say hello")) {
      if (message.type === "result") expect(message.result).toBe("Hello.");
    }
    const body = server.requests[0]!.body;
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "LS",
      "Glob",
      "Grep",
      "Bash",
    ]);
    expect(String(systemText(body)).startsWith("You are a concise engineering assistant.")).toBe(true);
    expect(String(systemText(body))).not.toContain("private workspace");
  });
});
