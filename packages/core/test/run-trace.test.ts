// RunTrace hands each event to the run's tracers: in order, each under its own failure policy, and — when every
// onEvent returns synchronously, as the hosted adapters' do — without a chain of promises per event.
import { describe, expect, it } from "vitest";
import { type ContextTraceEvent, defineContextTracer } from "../src/index.js";
import { RunTrace } from "../src/internal.js";

const options = { sessionId: "s", source: "agent" };

describe("RunTrace.emit", () => {
  it("costs a synchronous tracer no promise per event: every emit returns the same settled promise", async () => {
    const seen: string[] = [];
    const trace = new RunTrace(
      [defineContextTracer({ onEvent: event => void seen.push(event.type) })],
      options,
    );
    const first = trace.emit("user_message", { content: "hi", origin: "prompt" });
    const second = trace.emit("user_message", { content: "again", origin: "runtime" });
    expect(seen).toEqual(["user_message", "user_message"]); // delivered inside emit()
    expect(second).toBe(first);
    await expect(first).resolves.toBeUndefined();
  });

  it("awaits an asynchronous tracer before the next tracer sees the event, and stamps seq in order", async () => {
    const order: string[] = [];
    let release = () => {};
    const slow = defineContextTracer({
      onEvent: event =>
        new Promise<void>(resolve => {
          order.push(`slow ${event.seq}`);
          release = resolve;
        }),
    });
    const fast = defineContextTracer({ onEvent: event => void order.push(`fast ${event.seq}`) });
    const trace = new RunTrace([slow, fast], options);
    const emitted = trace.emit("user_message", { content: "hi", origin: "prompt" });
    await Promise.resolve();
    expect(order).toEqual(["slow 0"]);
    release();
    await emitted;
    expect(order).toEqual(["slow 0", "fast 0"]);
  });

  it("applies each tracer's failure policy to synchronous throws and rejections alike", async () => {
    const seen: ContextTraceEvent[] = [];
    const boom = () => {
      throw new Error("boom");
    };
    const swallowed = defineContextTracer({ onEvent: boom });
    const after = defineContextTracer({ onEvent: event => void seen.push(event) });
    await new RunTrace([swallowed, after], options).emit("user_message", { content: "a", origin: "prompt" });
    expect(seen).toHaveLength(1); // a failing tracer does not keep the event from the next one

    const failing = defineContextTracer({ onEvent: boom }, { failOnError: true });
    await expect(
      new RunTrace([failing], options).emit("user_message", { content: "b", origin: "prompt" }),
    ).rejects.toThrow("boom");
    const rejecting = defineContextTracer({ onEvent: async () => boom() }, { failOnError: true });
    await expect(
      new RunTrace([rejecting], options).emit("user_message", { content: "c", origin: "prompt" }),
    ).rejects.toThrow("boom");
  });

  it("passes the redaction hook's replacement to every tracer", async () => {
    const seen: unknown[] = [];
    const trace = new RunTrace([defineContextTracer({ onEvent: event => void seen.push(event.data) })], {
      ...options,
      hook: event => ({ ...event, data: { content: "[redacted]", origin: "prompt" } }) as ContextTraceEvent,
    });
    await trace.emit("user_message", { content: "secret", origin: "prompt" });
    expect(seen).toEqual([{ content: "[redacted]", origin: "prompt" }]);
  });
});
