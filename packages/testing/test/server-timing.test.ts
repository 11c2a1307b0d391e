// Delays and hang-ups. Timing assertions are deliberately loose lower bounds: the machine is shared.
import { describe, expect, test } from "vitest";
import { textTurn } from "../src/index.js";
import { ask, sdk, serve } from "./support.js";

describe("delays", () => {
  test("chunkDelayMs spaces events, which still arrive complete and in order", async () => {
    const server = await serve({
      script: [textTurn("abcdefghijklmnopqrstuvwx", { chunkDelayMs: 20 })],
      chunkSize: 4,
    });
    const stream = await sdk(server).messages.create({ ...ask, stream: true });
    const arrivals: Array<{ type: string; at: number }> = [];
    for await (const event of stream) arrivals.push({ type: event.type, at: Date.now() });
    expect(arrivals.map(arrival => arrival.type)).toEqual([
      "message_start",
      "content_block_start",
      ...Array(6).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    // 12 events on the wire (ping included) → 11 gaps of 20 ms; require only a fraction of that.
    expect(arrivals.at(-1)!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(100);
  });

  test("delayMs holds back a non-streaming response", async () => {
    const server = await serve({ script: [textTurn("late", { delayMs: 150 })] });
    const started = Date.now();
    await sdk(server).messages.create(ask);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  test("delayMs holds back the stream's status line", async () => {
    const server = await serve({ script: [textTurn("late", { delayMs: 150 })] });
    const started = Date.now();
    await sdk(server).messages.create({ ...ask, stream: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe("client hang-ups", () => {
  test("a client leaving mid-stream does not disturb the server", async () => {
    const server = await serve({
      script: [textTurn("x".repeat(200), { chunkDelayMs: 10 }), textTurn("next")],
      chunkSize: 1,
    });
    const client = sdk(server);
    const stream = await client.messages.create({ ...ask, stream: true });
    let count = 0;
    for await (const _event of stream) if (++count === 5) break; // break aborts the request
    expect((await client.messages.create(ask)).content).toEqual([{ type: "text", text: "next" }]);
  });

  test("a client aborting during delayMs lets close() finish promptly", async () => {
    const server = await serve({ script: [textTurn("never seen", { delayMs: 60_000 })] });
    const controller = new AbortController();
    const pending = sdk(server)
      .messages.create(ask, { signal: controller.signal })
      .catch(e => e);
    setTimeout(() => controller.abort(), 30);
    await pending;
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
