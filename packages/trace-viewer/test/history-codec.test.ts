// The page embeds each model_request's messages as "the first k of the run's previous request, then these":
// lossless, and it turns a run's quadratic request history into a linear one.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readContextTrace } from "@agent-lattice/core";
import { describe, expect, it } from "vitest";
import { recordDemoTrace } from "../scripts/demo-trace.mjs";
import { syntheticTrace } from "../scripts/synthetic-trace.mjs";
import { HISTORY_KEY, HistoryDecoder, HistoryEncoder } from "../src/model/history-codec.js";
import type { TraceEvent } from "../src/model/trace-event.js";
import { runEvents } from "./support/events.js";

function roundTrip(events: TraceEvent[]) {
  const encoder = new HistoryEncoder();
  const encoded = events.map(event => encoder.encode(event));
  const wire = JSON.parse(JSON.stringify(encoded)) as TraceEvent[];
  const decoder = new HistoryDecoder();
  return { encoded, decoded: wire.map(event => decoder.decode(event)) };
}

describe("request history encoding", () => {
  it("round-trips a real run exactly, sharing what consecutive requests of a run have in common", async () => {
    const dir = await mkdtemp(join(tmpdir(), "al-viewer-codec-"));
    try {
      await recordDemoTrace(join(dir, "t.jsonl"));
      const events = readContextTrace(await readFile(join(dir, "t.jsonl"), "utf8")) as TraceEvent[];
      const { encoded, decoded } = roundTrip(events);
      expect(decoded).toEqual(events);
      // Prompt caching marks each request's last message (cache_control), so a request shares all but the last
      // of the previous request's messages: the lead's third request keeps 2 of its second's 3.
      const requests = encoded.filter(event => event.type === "model_request");
      expect(requests.map(event => (event as Record<string, any>)[HISTORY_KEY]?.keep ?? 0)).toEqual([
        0, 0, 0, 0, 2,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("shrinks a long trace and restores it exactly", () => {
    const events = syntheticTrace({ events: 3000 });
    const { encoded, decoded } = roundTrip(events);
    expect(decoded).toEqual(events);
    expect(JSON.stringify(encoded).length).toBeLessThan(JSON.stringify(events).length * 0.8);
  });

  it("a history that was rewritten (compaction) is sent whole; odd shapes pass through untouched", () => {
    const run = runEvents("r", "a");
    const request = (messages: unknown) => run.emit("model_request", { turn: 1, model: "m", messages });
    const one = { role: "user", content: "a" };
    const two = { role: "assistant", content: [{ type: "text", text: "b" }] };
    request([one]);
    request([one, two]);
    request([{ role: "user", content: "summary" }, two]); // compacted: no shared prefix
    request("not an array");
    request([one]);
    const { encoded, decoded } = roundTrip(run.events);
    expect(decoded).toEqual(run.events);
    expect(encoded.map(event => (event as Record<string, any>)[HISTORY_KEY]?.keep ?? 0)).toEqual([
      0, 1, 0, 0, 0,
    ]);
  });
});
