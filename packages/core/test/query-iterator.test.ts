// C2: agent.query() behaves as an async generator in every way a consumer can drive it, also while a model
// response is relayed to the consumer event by event (stream_event messages read straight from the model stream).
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  createBareAgent,
  type ModelClient,
  type RawStreamEvent,
  type SDKMessage,
  tool,
} from "../src/index.js";

const echo = tool("echo", "Echo", z.object({ text: z.string() }), async ({ text }) => ({ content: text }));
const script = () => [
  toolTurn({ name: "echo", input: { text: "one" } }),
  toolTurn({ name: "echo", input: { text: "two" } }),
  textTurn("done"),
];
const shape = (message: SDKMessage) =>
  message.type === "stream_event" ? `stream_event:${message.event.type}` : message.type;

async function sequential(): Promise<SDKMessage[]> {
  const agent = createBareAgent({
    model: "m",
    modelClient: createScriptedModelClient({ script: script() }),
    tools: [echo],
  });
  const messages: SDKMessage[] = [];
  for await (const message of agent.query("go")) messages.push(message);
  return messages;
}

/** A stream that sends message_start, then a text block start, then never answers and ignores its signal. */
function stallingClient(): ModelClient & { returned: number } {
  const client = {
    returned: 0,
    create: () => new Promise<never>(() => {}),
    stream: (): AsyncIterable<RawStreamEvent> => ({
      [Symbol.asyncIterator]: () => {
        const events: RawStreamEvent[] = [
          {
            type: "message_start",
            message: { id: "msg_1", model: "m", usage: { input_tokens: 1, output_tokens: 0 } },
          } as RawStreamEvent,
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        ];
        return {
          next: () =>
            events.length
              ? Promise.resolve({ done: false, value: events.shift()! })
              : new Promise<IteratorResult<RawStreamEvent>>(() => {}),
          return: async () => {
            client.returned += 1;
            return { done: true, value: undefined };
          },
        };
      },
    }),
  };
  return client;
}

describe("agent.query() as an async generator (C2)", () => {
  it("next() calls made before earlier ones settle get the messages in order, as from a generator", async () => {
    const expected = (await sequential()).map(shape);
    const agent = createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: script() }),
      tools: [echo],
    });
    const query = agent.query("go");
    const steps = await Promise.all(Array.from({ length: expected.length + 2 }, () => query.next()));
    expect(steps.filter(step => !step.done).map(step => shape(step.value as SDKMessage))).toEqual(expected);
    expect(steps.slice(-2).every(step => step.done)).toBe(true);
    expect(expected.filter(type => type.startsWith("stream_event")).length).toBeGreaterThan(6);
  });

  it("return() while the model streams releases the stream; the agent's next query runs on a well-formed history", async () => {
    const client = createScriptedModelClient({ script: [textTurn("a long answer"), textTurn("second")] });
    const agent = createBareAgent({ model: "m", modelClient: client });
    const query = agent.query("first");
    let step = await query.next();
    while (!step.done && step.value.type !== "stream_event") step = await query.next();
    expect(await query.return(undefined)).toEqual({ done: true, value: undefined });
    expect(await query.next()).toEqual({ done: true, value: undefined });
    expect((await agent.prompt("again")).result).toBe("second");
    expect((await agent.getHistory()).map(message => message.role)).toEqual(["user", "user", "assistant"]);
  });

  it("return() called while a read of the stream is pending ends the query at once, even against a stream that ignores its signal", async () => {
    const client = stallingClient();
    const agent = createBareAgent({ model: "m", modelClient: client });
    const query = agent.query("go");
    const seen: string[] = [];
    for (let step = await query.next(); !step.done; step = await query.next()) {
      seen.push(shape(step.value));
      if (seen.length === 3) break; // init, message_start, content_block_start: the next read stalls
    }
    const stalled = query.next();
    // Nothing else ends this query: no interrupt, no signal, no deadline. return() itself must.
    const ending = query.return(undefined);
    const after = await stalled;
    // The pending read settles with the loop's ending (the consumer is leaving, so nobody reads it)...
    expect(after).toMatchObject({ done: false, value: { type: "result", subtype: "error_abort" } });
    expect((after.value as { result: string }).result).toMatch(/consumer stopped reading/);
    // ...then the iterator is done, the stream was released and the agent is free for its next query.
    expect(await ending).toEqual({ done: true, value: undefined });
    expect(await query.next()).toEqual({ done: true, value: undefined });
    expect(client.returned).toBe(1);
    expect((await agent.getHistory()).map(message => message.role)).toEqual(["user"]);
  });

  it("interrupt() ends a stream that stalls mid-response and ignores its signal; its late events are not delivered", async () => {
    const client = stallingClient();
    const agent = createBareAgent({ model: "m", modelClient: client });
    const messages: SDKMessage[] = [];
    for await (const message of agent.query("go")) {
      messages.push(message);
      if (message.type === "stream_event" && message.event.type === "content_block_start") {
        setTimeout(() => agent.interrupt(), 10);
      }
    }
    expect(messages.map(shape)).toEqual([
      "system",
      "stream_event:message_start",
      "stream_event:content_block_start",
      "result",
    ]);
    expect(messages.at(-1)).toMatchObject({ subtype: "interrupted", is_error: false });
    expect(client.returned).toBe(1);
  });

  it("Symbol.asyncDispose ends a running query (await using)", async () => {
    const client = stallingClient();
    const agent = createBareAgent({ model: "m", modelClient: client });
    // AsyncGenerator's own type lacks Symbol.asyncDispose on Node 20's lib; the object has it.
    const started = agent.query("go") as ReturnType<typeof agent.query> & AsyncDisposable;
    {
      await using query = started;
      expect((await query.next()).value).toMatchObject({ type: "system" });
      expect((await query.next()).value).toMatchObject({ type: "stream_event" });
    }
    expect(client.returned).toBe(1);
    expect(agent.interrupt()).toBe(false); // no query is running any more
  });
});
