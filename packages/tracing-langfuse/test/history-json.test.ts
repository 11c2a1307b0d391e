// Generation inputs are assembled from each message's JSON made once (history-json.ts): the text must be, byte for
// byte, what JSON.stringify gives for the input @langfuse/tracing would otherwise serialise, on every turn.
import type { ModelRequestData } from "@agent-lattice/core";
import { describe, expect, it } from "vitest";
import { HistoryJson } from "../src/history-json.js";
import { generationInput } from "../src/payloads.js";

/** A growing history the way core builds it: stored messages reused, assistant envelopes re-wrapped. */
function requests(turns: number, system: ModelRequestData["system"]): ModelRequestData[] {
  const stored: Array<Record<string, unknown>> = [{ role: "user", content: "go" }];
  const out: ModelRequestData[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    out.push({
      turn,
      model: "m",
      max_tokens: 100,
      system,
      tools: ["echo"],
      messages: stored.map((message, i) =>
        message.role === "assistant"
          ? { role: "assistant", content: message.content }
          : i === stored.length - 1
            ? { ...message, cache: { type: "ephemeral" } }
            : message,
      ),
    } as unknown as ModelRequestData);
    stored.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `t${turn}`, name: "echo", input: { text: `é "${turn}"\n` } }],
    });
    stored.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${turn}`, content: "ok" }] });
  }
  return out;
}

describe("generation inputs as JSON text", () => {
  it.each([
    { system: undefined },
    { system: "You are terse." },
    {
      system: [
        { type: "text", text: "shared" },
        { type: "text", text: "query" },
      ],
    },
  ])("equal JSON.stringify of the input on every turn (system: $system)", ({ system }) => {
    const json = new HistoryJson();
    for (const request of requests(8, system as ModelRequestData["system"])) {
      expect(json.input(request)).toBe(JSON.stringify(generationInput(request)));
    }
  });

  it("stay exact for odd messages: undefined entries, toJSON, text that looks like the placeholder", () => {
    const json = new HistoryJson();
    const dated = {
      role: "user",
      content: [{ type: "text", text: "x" }],
      toJSON: () => ({ role: "user", content: "y" }),
    };
    const sneaky = {
      role: "user",
      content: [{ type: "text", text: "\u0000agent-lattice:json\u0000" }],
      note: "\u0000agent-lattice:json\u0000",
    };
    const request = {
      turn: 1,
      model: "m",
      max_tokens: 1,
      tools: [],
      messages: [undefined, dated, sneaky, { role: "user", content: undefined }],
    } as unknown as ModelRequestData;
    expect(json.input(request)).toBe(JSON.stringify(generationInput(request)));
    expect(json.input(request)).toBe(JSON.stringify(generationInput(request)));
  });
});
