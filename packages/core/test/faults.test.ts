import {
  dropConnection,
  invalidRequest,
  overloaded,
  promptTooLong,
  rateLimited,
  serverError,
  streamError,
  textTurn,
  toolTurn,
  unauthorized,
} from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { APIError, createBareAgent, tool } from "../src/index.js";
import { collect, mockServer } from "./helpers.js";

const echo = tool("echo", "Echo", z.object({ text: z.string() }), async ({ text }) => ({ content: text }));

describe("provider faults", () => {
  it.each([
    ["429 with retry-after", rateLimited(0.05)],
    ["529 overloaded", overloaded(0.05)],
    ["500 server error", serverError()],
  ])("%s is retried by the client and the query succeeds", async (_name, fault) => {
    const server = await mockServer([fault, textTurn("recovered")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const result = await agent.prompt("hi");
    expect(result).toMatchObject({ subtype: "success", result: "recovered" });
    expect(server.requests).toHaveLength(2);
  });

  it("a 400 ends the query with error_during_execution and a typed APIError; history keeps no partial turn", async () => {
    const server = await mockServer([invalidRequest("messages.0.content: field required")]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const messages = await collect(agent.query("hi"));
    const result = messages.at(-1)!;
    expect(result).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
    });
    const error = result.type === "result" ? result.error : undefined;
    // The obvious print of a failed run says why.
    expect(result.type === "result" && result.result).toBe(error?.message);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({
      code: "invalid_request_error",
      status: 400,
      type: "invalid_request_error",
    });
    expect(error?.message).toContain("messages.0.content: field required");
    expect(messages.some(m => m.type === "assistant")).toBe(false);
    expect(await agent.getHistory()).toEqual([{ role: "user", content: "hi" }]);
  });

  it("a prompt-too-long 400 keeps the provider's message so hosts can recognise it", async () => {
    const server = await mockServer([promptTooLong(215_000, 200_000)]);
    const result = await createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" }).prompt("hi");
    expect(result.error?.message).toContain("prompt is too long: 215000 tokens > 200000 maximum");
  });

  it("a 401 is not retried and names the authentication error", async () => {
    const server = await mockServer([unauthorized()]);
    const result = await createBareAgent({ apiKey: "bad", baseURL: server.url, model: "m" }).prompt("hi");
    expect(result.error).toMatchObject({ status: 401, type: "authentication_error" });
    expect(server.requests).toHaveLength(1);
  });

  it("an SSE error event mid-stream ends the query with a typed error and drops the partial message", async () => {
    const server = await mockServer([
      streamError(textTurn("half an answer that will never finish"), 5, "overloaded_error", "Overloaded"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", maxRetries: 0 });
    const messages = await collect(agent.query("hi"));
    expect(messages.filter(m => m.type === "stream_event").length).toBeGreaterThan(0);
    const result = messages.at(-1)!;
    expect(result).toMatchObject({ type: "result", subtype: "error_during_execution" });
    expect(result.type === "result" && result.error).toMatchObject({ type: "overloaded_error" });
    expect(await agent.getHistory()).toEqual([{ role: "user", content: "hi" }]);
  });

  it("a connection dropped mid-stream ends the query with an APIError and no partial message", async () => {
    const server = await mockServer([dropConnection(textTurn("this stream is torn apart"), 4)]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const result = await agent.prompt("hi");
    expect(result.subtype).toBe("error_during_execution");
    expect(result.error).toBeInstanceOf(APIError);
    expect(await agent.getHistory()).toEqual([{ role: "user", content: "hi" }]);
  });

  it("after a failed turn mid-conversation, completed turns stay and the agent can continue", async () => {
    const server = await mockServer([
      toolTurn({ name: "echo", input: { text: "one" } }),
      invalidRequest("bad"),
      textTurn("continued"),
    ]);
    const agent = createBareAgent({ apiKey: "k", baseURL: server.url, model: "m", tools: [echo] });
    expect((await agent.prompt("first")).subtype).toBe("error_during_execution");
    const history = await agent.getHistory();
    expect(history.map(m => m.role)).toEqual(["user", "assistant", "user"]);
    expect((await agent.prompt("again")).result).toBe("continued");
  });
});
