// Identity across two installed copies of core (core seams issue): an adapter built against another core version
// brings its own copy, and tracers, history stores, errors and declared output schemas must still be recognised.
// Copy A is the built bundle copied to a directory of its own; copy B is this package's source.
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import * as B from "../src/index.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
let copyDir: string;
let A: typeof B;

beforeAll(async () => {
  if (!existsSync(join(packageDir, "dist/index.js"))) {
    throw new Error("Build core first (pnpm build): this test loads the built bundle as a second copy.");
  }
  copyDir = mkdtempSync(join(tmpdir(), "al-core-copy-"));
  cpSync(join(packageDir, "dist"), join(copyDir, "dist"), { recursive: true });
  cpSync(join(packageDir, "package.json"), join(copyDir, "package.json"));
  // The copy resolves its own dependencies (the Anthropic SDK, yaml) from this package's node_modules.
  symlinkSync(join(packageDir, "node_modules"), join(copyDir, "node_modules"));
  A = (await import(pathToFileURL(join(copyDir, "dist/index.js")).href)) as typeof B;
});

afterAll(() => {
  if (copyDir) rmSync(copyDir, { recursive: true, force: true });
});

describe("two copies of core in one process", () => {
  it("are really two module instances", () => {
    expect(A.createBareAgent).not.toBe(B.createBareAgent);
    expect(A.AgentLatticeError).not.toBe(B.AgentLatticeError);
  });

  it("a tracer made by one copy is accepted and fed by the other", async () => {
    const events: unknown[] = [];
    const tracer = A.defineContextTracer({ onEvent: event => void events.push(event) });
    const composite = B.createCompositeContextTracer([tracer]);
    const agent = B.createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("hi")] }),
      tracer: composite,
    });
    await agent.prompt("go", { tracer: A.createCompositeContextTracer([]) });
    expect(events.length).toBeGreaterThan(3);
  });

  it("a tracer's failure policy bound by one copy is honoured by the other", async () => {
    const failing = A.defineContextTracer(
      {
        onEvent() {
          throw new Error("sink down");
        },
      },
      { failOnError: true },
    );
    const agent = B.createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("hi")] }),
      tracer: failing,
    });
    await expect(agent.prompt("go")).rejects.toThrow("sink down");
  });

  it("a history store made by one copy is accepted by the other", async () => {
    const stored: unknown[] = [];
    const store = A.defineHistoryStore({
      load: () => [
        { role: "user", content: "earlier" },
        { role: "assistant", content: [{ type: "text", text: "noted" }] },
      ],
      append: message => void stored.push(message),
      replace: () => {},
    });
    const client = createScriptedModelClient({ script: [textTurn("hi")] });
    const agent = B.createBareAgent({ model: "m", modelClient: client, historyStore: store });
    await agent.prompt("now");
    expect(client.requests[0]!.messages).toHaveLength(3);
    expect(stored).toHaveLength(2);
  });

  it("errors are recognised by instanceof and isInstance across copies, by class", () => {
    const timeout = new A.TimeoutError(5);
    expect(timeout instanceof B.TimeoutError).toBe(true);
    expect(timeout instanceof B.AgentLatticeError).toBe(true);
    expect(timeout instanceof B.APIError).toBe(false);
    expect(B.TimeoutError.isInstance(timeout)).toBe(true);
    expect(B.AbortError.isInstance(timeout)).toBe(false);
    expect(new B.ConcurrentQueryError() instanceof A.ConcurrentQueryError).toBe(true);
    expect(new Error("plain") instanceof B.AgentLatticeError).toBe(false);
    // A host's own subclass keeps ordinary instanceof semantics.
    class HostError extends B.AgentLatticeError {}
    expect(new HostError("host", "x") instanceof HostError).toBe(true);
    expect(new B.TimeoutError(1) instanceof HostError).toBe(false);
  });

  it("an error thrown by one copy's agent is caught as the other copy's class", async () => {
    const agent = A.createBareAgent({
      model: "m",
      modelClient: createScriptedModelClient({ script: [textTurn("slow", { delayMs: 200 })] }),
    });
    const first = agent.prompt("one");
    await expect(agent.prompt("two")).rejects.toBeInstanceOf(B.ConcurrentQueryError);
    await first;
  });

  it("an output schema declared on one copy's agent is inherited by the other copy's agentTool()", async () => {
    const schema = z.object({ ok: z.boolean() });
    const child = A.createBareAgent({
      model: "m",
      outputSchema: schema,
      modelClient: createScriptedModelClient({
        script: [toolTurn({ name: "submit_output", input: { ok: true } })],
      }),
    });
    const client = createScriptedModelClient({
      script: [toolTurn({ name: "child", input: { task: "check" } }), textTurn("done")],
    });
    const parent = B.createBareAgent({
      model: "m",
      modelClient: client,
      tools: [B.agentTool("child", child)],
    });
    await parent.prompt("go");
    const results = client.requests[1]!.messages.at(-1)!.content as Array<{ content: string }>;
    expect(JSON.parse(results[0]!.content)).toEqual({ ok: true });
    expect(client.requests[0]!.tools[0]!.description).toMatch(/validated structured output/);
  });
});
