// The part of the hosted tracing adapters (R4, R5) that core's internal entry holds for both: trace events to one
// tree per query (TraceTreeMapper), the deferred event queue and delivery failures. The adapters' own tests
// check the trees LangSmith and Langfuse receive; these check the shared decisions on a recording tree.
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import {
  agentTool,
  type ContextTraceEvent,
  createBareAgent,
  defineContextTracer,
  type ToolResultData,
  tool,
} from "../src/index.js";
import {
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_QUIET_MS,
  DeferredEvents,
  DeliveryFailures,
  QuietTimer,
  type TraceRun,
  TraceTreeMapper,
} from "../src/internal.js";

interface Node {
  kind: string;
  name: string;
  children: Node[];
  ended?: boolean;
  error?: string;
}

/** A tree of plain nodes, built as a backend's would be. */
class RecordingMapper extends TraceTreeMapper<Node> {
  readonly roots: Node[] = [];
  #add(parent: Node, kind: string, name: string, extra: Partial<Node> = {}): Node {
    const node = { kind, name, children: [], ...extra };
    parent.children.push(node);
    return node;
  }
  protected startRoot(event: ContextTraceEvent<"run_start">): Node {
    const node = { kind: "chain", name: event.source, children: [] };
    this.roots.push(node);
    return node;
  }
  protected startChild(parent: Node, event: ContextTraceEvent<"run_start">): Node {
    return this.#add(parent, "chain", event.source);
  }
  protected prompt(): boolean {
    return true;
  }
  protected modelTurn(run: TraceRun<Node>, _event: unknown, _request: unknown, model: string): void {
    this.#add(run.node, "llm", model, { ended: true });
  }
  protected failedRequest(
    run: TraceRun<Node>,
    request: ContextTraceEvent<"model_request">,
    error: string,
  ): void {
    this.#add(run.node, "llm", request.data.model, { ended: true, error });
  }
  protected openCall(run: TraceRun<Node>, use: ContextTraceEvent<"tool_use">): Node {
    return this.#add(run.node, "tool", use.data.name);
  }
  protected endCall(
    node: Node,
    _use: unknown,
    _result: ToolResultData | undefined,
    error: string | undefined,
  ): void {
    node.ended = true;
    if (error) node.error = error;
  }
  protected toolCall(
    run: TraceRun<Node>,
    use: ContextTraceEvent<"tool_use">,
    _result: ToolResultData,
    error: string | undefined,
  ): void {
    this.#add(run.node, "tool", use.data.name, { ended: true, ...(error ? { error } : {}) });
  }
  protected compaction(run: TraceRun<Node>): void {
    this.#add(run.node, "llm", "compaction", { ended: true });
  }
  protected traceEvent(run: TraceRun<Node>, event: ContextTraceEvent): void {
    this.#add(run.node, "event", event.type, { ended: true });
  }
  protected endRun(run: TraceRun<Node>, _outputs: unknown, error: string | undefined): void {
    run.node.ended = true;
    if (error) run.node.error = error;
  }
}

/** The events of one query of a lead with a working tool, a failing tool and a delegated child. */
async function leadEvents(): Promise<ContextTraceEvent[]> {
  const events: ContextTraceEvent[] = [];
  const tracer = defineContextTracer({ onEvent: event => void events.push(event) });
  const child = createBareAgent({
    model: "child-model",
    name: "researcher",
    modelClient: createScriptedModelClient({ script: [textTurn("The moon pulls the sea.")] }),
  });
  const lookup = tool("lookup", "Looks up", z.object({ q: z.string() }), async ({ q }) => ({
    content: `fact ${q}`,
  }));
  const broken = tool("broken", "Fails", z.object({}), async () => {
    throw new Error("disk on fire");
  });
  const lead = createBareAgent({
    model: "lead-model",
    name: "lead",
    tools: [lookup, broken, agentTool("researcher", child)],
    modelClient: createScriptedModelClient({
      script: [
        toolTurn([
          { name: "lookup", input: { q: "tides" } },
          { name: "broken", input: {} },
          { name: "researcher", input: { task: "Summarise tides" } },
        ]),
        textTurn("Tides follow the moon."),
      ],
    }),
  });
  // A tracer given per query reaches the delegated agent too.
  await lead.prompt("Why tides?", { tracer });
  return events;
}

describe("TraceTreeMapper (R4, R5: one tree per query)", () => {
  it("nests a delegated run under the tool call that started it and marks the failing tool", async () => {
    const mapper = new RecordingMapper();
    for (const event of await leadEvents()) mapper.handle(event);
    expect(mapper.openRuns).toBe(0);
    expect(mapper.roots).toHaveLength(1);
    const [root] = mapper.roots;
    expect(root).toMatchObject({ kind: "chain", name: "lead", ended: true });
    expect(root!.error).toBeUndefined();
    expect(root!.children.filter(node => node.kind === "llm").map(node => node.name)).toEqual([
      "lead-model",
      "lead-model",
    ]);
    const tools = root!.children.filter(node => node.kind === "tool");
    expect(tools.map(node => node.name).sort()).toEqual(["broken", "lookup", "researcher"]);
    expect(tools.find(node => node.name === "broken")!.error).toContain("disk on fire");
    const delegated = tools.find(node => node.name === "researcher")!;
    expect(delegated.children.map(node => `${node.kind}:${node.name}`)).toEqual(["chain:researcher"]);
    expect(delegated.children[0]!.children.map(node => node.kind)).toEqual(["llm"]);
    expect(tools.every(node => node.ended)).toBe(true);
  });

  it("endAll() ends what is open — pending requests and opened calls fail with the reason", async () => {
    const events = await leadEvents();
    // Stop just after the child run started: the lead's call to it is open, the child's request pending.
    const childRequest = events.findIndex(
      event => event.type === "model_request" && event.source === "researcher",
    );
    const mapper = new RecordingMapper();
    for (const event of events.slice(0, childRequest + 1)) mapper.handle(event);
    expect(mapper.openRuns).toBe(2);
    mapper.endAll("closed early");
    expect(mapper.openRuns).toBe(0);
    const root = mapper.roots[0]!;
    expect(root).toMatchObject({ ended: true, error: "closed early" });
    const call = root.children.find(node => node.name === "researcher")!;
    expect(call.error).toBe("the run ended before the call returned: closed early");
    const childRun = call.children[0]!;
    expect(childRun).toMatchObject({ ended: true, error: "closed early" });
    expect(childRun.children).toEqual([
      { kind: "llm", name: "child-model", children: [], ended: true, error: "closed early" },
    ]);
  });

  it("ignores the events of a run whose start it never saw", async () => {
    const mapper = new RecordingMapper();
    for (const event of (await leadEvents()).filter(event => event.type !== "run_start"))
      mapper.handle(event);
    expect(mapper.roots).toEqual([]);
  });
});

describe("DeferredEvents", () => {
  const event = (seq: number) => ({ type: "user_message", seq }) as unknown as ContextTraceEvent;

  // Fake timers: the pause is simulated, so nothing here depends on how fast the machine is.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds events until started, then hands them over in order once the pushes pause", () => {
    const seen: number[] = [];
    const queue = new DeferredEvents(() => {});
    queue.push(event(1));
    vi.advanceTimersByTime(DEFAULT_MAX_DELAY_MS);
    expect(seen).toEqual([]); // not started: nothing handled, nothing lost
    queue.start(e => seen.push(e.seq));
    expect(seen).toEqual([1]);
    queue.push(event(2));
    vi.advanceTimersByTime(DEFAULT_QUIET_MS - 1);
    queue.push(event(3)); // still busy: the pause starts again
    vi.advanceTimersByTime(DEFAULT_QUIET_MS - 1);
    expect(seen).toEqual([1]); // never inside the caller's burst of events
    vi.advanceTimersByTime(1);
    expect(seen).toEqual([1, 2, 3]);
    expect(vi.getTimerCount()).toBe(0); // nothing left armed
  });

  it("hands over a stream that never pauses at the batch's deadline, and at once on drain()", () => {
    const seen: number[] = [];
    const queue = new DeferredEvents(() => {}, { quietMs: 10, maxDelayMs: 100 });
    queue.start(e => seen.push(e.seq));
    for (let seq = 0; seq < 10; seq++) {
      queue.push(event(seq));
      vi.advanceTimersByTime(9);
    }
    expect(seen).toEqual([]);
    queue.push(event(10));
    vi.advanceTimersByTime(10); // 100 ms after the batch's first event
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    queue.push(event(11));
    queue.drain(); // flush() and close()
    expect(seen.at(-1)).toBe(11);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("reports an event the handler threw on and goes on with the rest; discard() drops what comes", async () => {
    const failed: number[] = [];
    const seen: number[] = [];
    const queue = new DeferredEvents(e => failed.push(e.seq));
    queue.start(e => {
      if (e.seq === 2) throw new Error("boom");
      seen.push(e.seq);
    });
    for (const seq of [1, 2, 3]) queue.push(event(seq));
    queue.drain();
    expect(seen).toEqual([1, 3]);
    expect(failed).toEqual([2]);
    queue.discard();
    queue.push(event(4));
    queue.drain();
    expect(seen).toEqual([1, 3]);
  });
});

describe("QuietTimer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs the work once per batch, after the pause; cancel() disarms it", () => {
    let runs = 0;
    const timer = new QuietTimer(() => runs++, { quietMs: 5, maxDelayMs: 50 });
    timer.touch();
    timer.touch();
    vi.advanceTimersByTime(5);
    expect(runs).toBe(1);
    vi.advanceTimersByTime(100);
    expect(runs).toBe(1); // the deadline was disarmed with the batch
    timer.touch();
    timer.cancel();
    vi.advanceTimersByTime(100);
    expect(runs).toBe(1);
    timer.touch(); // a new batch after cancel() arms new timers
    vi.advanceTimersByTime(5);
    expect(runs).toBe(2);
  });
});

describe("DeliveryFailures", () => {
  it("raises its failures once, through the adapter's error, keeping 20 lines and counting the rest", () => {
    const heard: string[] = [];
    const failures = new DeliveryFailures(
      (lines, options) => Object.assign(new Error(lines.join("; "), options), { lines }),
      line => heard.push(line),
    );
    const first = new Error("refused", { cause: new Error("ECONNREFUSED") });
    failures.add("POST /runs failed", first);
    for (let i = 0; i < 24; i++) failures.add(`batch ${i} lost`);
    expect(heard[0]).toBe("POST /runs failed: refused (ECONNREFUSED)");
    let thrown: (Error & { lines: string[] }) | undefined;
    try {
      failures.throwIfAny();
    } catch (error) {
      thrown = error as Error & { lines: string[] };
    }
    expect(thrown?.lines).toHaveLength(21);
    expect(thrown?.lines.at(-1)).toBe("5 more");
    expect(thrown?.cause).toBe(first);
    expect(() => failures.throwIfAny()).not.toThrow();
  });
});
