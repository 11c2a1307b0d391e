// The history each model_request carries crosses to the worker once per run (history-refs.ts): what the worker
// puts back together must equal what was emitted, turn after turn, through a structured clone (postMessage), and
// a batch that never reached the worker must not leave the worker short.
import { type ContextTraceEvent, TRACE_EVENT_VERSION } from "@agent-lattice/core";
import { describe, expect, it } from "vitest";
import { HistoryDecoder, HistoryEncoder } from "../src/history-refs.js";

let seq = 0;
function event(type: string, data: unknown, runId = "run-1"): ContextTraceEvent {
  return {
    v: TRACE_EVENT_VERSION,
    session_id: "s",
    run_id: runId,
    seq: seq++,
    source: "agent",
    time: new Date().toISOString(),
    type,
    data,
  } as ContextTraceEvent;
}
const request = (messages: unknown[], turn: number, runId?: string) =>
  event("model_request", { turn, model: "m", max_tokens: 100, tools: [], messages }, runId);

/** A growing history the way core builds it: stored messages reused, assistant envelopes re-wrapped. */
function history(turns: number) {
  const stored: Array<Record<string, unknown>> = [{ role: "user", content: "go" }];
  const requests: unknown[][] = [];
  for (let turn = 1; turn <= turns; turn++) {
    requests.push(
      stored.map((message, i) =>
        message.role === "assistant"
          ? { role: "assistant", content: message.content } // core's wire copy: same content array
          : i === stored.length - 1
            ? { ...message, cache: true } // the moving breakpoint: a copy of the newest message
            : message,
      ),
    );
    stored.push({ role: "assistant", content: [{ type: "tool_use", id: `t${turn}`, input: { n: turn } }] });
    stored.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${turn}`, content: "ok" }] });
  }
  return requests;
}

describe("history sent to the LangSmith worker once per run", () => {
  it("the worker sees every request's full history, and later requests carry only what is new", () => {
    const encoder = new HistoryEncoder();
    const decoder = new HistoryDecoder();
    const missing: string[] = [];
    const requests = history(6);
    const sizes: number[] = [];
    requests.forEach((messages, i) => {
      const emitted = request(messages, i + 1);
      const wire = structuredClone(encoder.encode(emitted));
      sizes.push(JSON.stringify(wire).length);
      expect(decoder.decode(wire, line => missing.push(line))).toEqual(emitted);
    });
    expect(missing).toEqual([]);
    // Each later request sends a few new messages, not the whole history again.
    expect(sizes.at(-1)! - sizes.at(-2)!).toBeLessThan(JSON.stringify(requests.at(-1)).length / 3);
    // Other events pass unchanged.
    const result = event("result", { subtype: "success" });
    expect(decoder.decode(structuredClone(encoder.encode(result)), () => {})).toEqual(result);
  });

  it("a run's tables end with it: the next run (same message objects) is sent in full", () => {
    const encoder = new HistoryEncoder();
    const decoder = new HistoryDecoder();
    const [first] = history(1);
    decoder.decode(structuredClone(encoder.encode(request(first!, 1, "a"))), () => {});
    decoder.decode(structuredClone(encoder.encode(event("result", {}, "a"))), () => {});
    const again = request(first!, 1, "b");
    const wire = structuredClone(encoder.encode(again));
    expect(wire.history!.every(message => typeof message === "object")).toBe(true);
    expect(decoder.decode(wire, () => {})).toEqual(again);
  });

  it("after a batch the worker never received, the run's next request is sent in full", () => {
    const encoder = new HistoryEncoder();
    const decoder = new HistoryDecoder();
    const missing: string[] = [];
    const [one, two, three] = history(3);
    decoder.decode(structuredClone(encoder.encode(request(one!, 1))), line => missing.push(line));
    const lost = request(two!, 2);
    encoder.encode(lost); // postMessage threw: dropped
    encoder.forget([lost]);
    const next = request(three!, 3);
    expect(decoder.decode(structuredClone(encoder.encode(next)), line => missing.push(line))).toEqual(next);
    expect(missing).toEqual([]);
  });

  it("a reference the worker cannot resolve is reported, not invented", () => {
    const encoder = new HistoryEncoder();
    const decoder = new HistoryDecoder();
    const [one, two, three] = history(3);
    encoder.encode(request(one!, 1)); // never delivered, and not forgotten
    encoder.encode(request(two!, 2));
    const missing: string[] = [];
    const decoded = decoder.decode(structuredClone(encoder.encode(request(two!, 2))), line =>
      missing.push(line),
    );
    expect(missing).toEqual([expect.stringContaining("history messages of run run-1 were lost")]);
    expect((decoded.data as { messages: unknown[] }).messages.length).toBeLessThan(three!.length);
  });
});
