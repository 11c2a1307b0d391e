import { describe, expect, test } from "vitest";
import {
  dropConnection,
  hang,
  httpError,
  invalidRequest,
  overloaded,
  promptTooLong,
  rateLimited,
  serverError,
  streamError,
  text,
  textTurn,
  thinking,
  toolTurn,
  toolUse,
  turn,
  unauthorized,
} from "../src/index.js";
import { statusForErrorType } from "../src/script.js";

describe("content helpers", () => {
  test("text builds a text block", () => {
    expect(text("hi")).toEqual({ type: "text", text: "hi" });
  });

  test("toolUse keeps an explicit id", () => {
    expect(toolUse("get", { a: 1 }, "toolu_x")).toEqual({
      type: "tool_use",
      id: "toolu_x",
      name: "get",
      input: { a: 1 },
    });
  });

  test("toolUse default ids are toolu_mock_<n> and unique", () => {
    const ids = Array.from({ length: 50 }, () => (toolUse("t", {}) as { id: string }).id);
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^toolu_mock_\d+$/);
  });

  test("thinking default signature is deterministic and base64-like", () => {
    const a = thinking("step by step") as { signature: string };
    const b = thinking("step by step") as { signature: string };
    const c = thinking("other") as { signature: string };
    expect(a.signature).toBe(b.signature);
    expect(a.signature).not.toBe(c.signature);
    expect(a.signature).toMatch(/^[A-Za-z0-9+/]{64}==$/);
  });

  test("thinking keeps an explicit signature", () => {
    expect(thinking("t", "sig")).toEqual({ type: "thinking", thinking: "t", signature: "sig" });
  });
});

describe("turn helpers", () => {
  test("turn accepts a string, a block or blocks", () => {
    expect(turn("hi").content).toEqual([text("hi")]);
    expect(turn(text("a")).content).toEqual([text("a")]);
    expect(turn([text("a"), text("b")]).content).toEqual([text("a"), text("b")]);
  });

  test("turn carries options and kind", () => {
    expect(turn("hi", { id: "msg_1", model: "m", stopReason: "max_tokens", delayMs: 5 })).toEqual({
      kind: "turn",
      content: [text("hi")],
      id: "msg_1",
      model: "m",
      stopReason: "max_tokens",
      delayMs: 5,
    });
  });

  test("textTurn is a one-text-block turn", () => {
    expect(textTurn("done", { usage: { input_tokens: 3 } })).toEqual({
      kind: "turn",
      content: [text("done")],
      usage: { input_tokens: 3 },
    });
  });

  test("toolTurn builds tool_use blocks with an optional leading text", () => {
    const single = toolTurn({ name: "read", input: { path: "a" }, id: "toolu_1" });
    expect(single.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "a" } }]);
    const many = toolTurn(
      [
        { name: "a", input: {} },
        { name: "b", input: { x: 1 } },
      ],
      { text: "Calling tools.", id: "msg_t" },
    );
    expect(many.content.map(block => block.type)).toEqual(["text", "tool_use", "tool_use"]);
    expect(many.content[0]).toEqual(text("Calling tools."));
    expect(many).not.toHaveProperty("text");
    expect(many.id).toBe("msg_t");
  });
});

describe("fault helpers", () => {
  test("httpError omits headers when none are given", () => {
    expect(httpError(418, "x_error", "teapot")).toEqual({
      kind: "http_error",
      status: 418,
      errorType: "x_error",
      message: "teapot",
    });
  });

  test("invalidRequest and promptTooLong are 400 invalid_request_error with the API's wording", () => {
    expect(invalidRequest("bad")).toMatchObject({
      status: 400,
      errorType: "invalid_request_error",
      message: "bad",
    });
    expect(promptTooLong()).toMatchObject({
      status: 400,
      errorType: "invalid_request_error",
      message: "prompt is too long: 215000 tokens > 200000 maximum",
    });
    expect(promptTooLong(300_000, 1_000_000)).toMatchObject({
      message: "prompt is too long: 300000 tokens > 1000000 maximum",
    });
  });

  test("unauthorized is 401 authentication_error", () => {
    expect(unauthorized()).toEqual({
      kind: "http_error",
      status: 401,
      errorType: "authentication_error",
      message: "invalid x-api-key",
    });
  });

  test("rateLimited is 429 with a fractional retry-after defaulting to 0.05", () => {
    expect(rateLimited()).toMatchObject({
      status: 429,
      errorType: "rate_limit_error",
      headers: { "retry-after": "0.05" },
    });
    expect(rateLimited(2)).toMatchObject({ headers: { "retry-after": "2" } });
  });

  test("serverError is 500 api_error", () => {
    expect(serverError()).toEqual({
      kind: "http_error",
      status: 500,
      errorType: "api_error",
      message: "Internal server error",
    });
  });

  test("overloaded is 529 and sets retry-after only when given", () => {
    expect(overloaded()).toEqual({
      kind: "http_error",
      status: 529,
      errorType: "overloaded_error",
      message: "Overloaded",
    });
    expect(overloaded(0.5)).toMatchObject({ headers: { "retry-after": "0.5" } });
  });

  test("streamError defaults to overloaded_error / Overloaded", () => {
    const t = textTurn("x");
    expect(streamError(t, 3)).toEqual({
      kind: "stream_error",
      turn: t,
      afterEvents: 3,
      errorType: "overloaded_error",
      message: "Overloaded",
    });
    expect(streamError(t, 1, "api_error", "boom")).toMatchObject({ errorType: "api_error", message: "boom" });
  });

  test("dropConnection and hang build their faults", () => {
    const t = textTurn("x");
    expect(dropConnection(t, 2)).toEqual({ kind: "drop_connection", turn: t, afterEvents: 2 });
    expect(hang()).toEqual({ kind: "hang" });
  });

  test("statusForErrorType maps API error types to their statuses", () => {
    expect(statusForErrorType("overloaded_error")).toBe(529);
    expect(statusForErrorType("rate_limit_error")).toBe(429);
    expect(statusForErrorType("invalid_request_error")).toBe(400);
    expect(statusForErrorType("something_new")).toBe(500);
  });
});
