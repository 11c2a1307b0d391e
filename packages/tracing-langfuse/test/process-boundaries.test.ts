// What a user's process sees: importing the adapter loads neither @langfuse/tracing nor OpenTelemetry (they load
// when a tracer is created), and a short-lived process wired as the README says, that prompts once and closes
// its tracer, has delivered every span when it exits. Runs the built package (dist/).
import { fileURLToPath } from "node:url";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { packagesLoadedBy, runNodeScript } from "../../core/test/support/hosted-tracer-scenes.js";
import { mockModel, receiver } from "./helpers.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe("lazy loading", () => {
  it("importing @agent-lattice/tracing-langfuse loads neither @langfuse/* nor OpenTelemetry", async () => {
    const loaded = await packagesLoadedBy(fixture("import-only.mjs"));
    expect(loaded.has("@agent-lattice/tracing-langfuse")).toBe(true); // the recorder works
    expect(
      [...loaded].filter(name => name.startsWith("@langfuse/") || name.startsWith("@opentelemetry/")),
    ).toEqual([]);
  });

  it("creating a tracer loads @langfuse/tracing and @opentelemetry/api", async () => {
    const loaded = await packagesLoadedBy(fixture("create-tracer.mjs"));
    expect(loaded.has("@langfuse/tracing")).toBe(true);
    expect(loaded.has("@opentelemetry/api")).toBe(true);
  });
});

describe("a short-lived process (R5: flush/close drain the span processor)", () => {
  it("delivers every span of its one prompt before it exits", async () => {
    const otlp = await receiver();
    const model = await mockModel([toolTurn({ name: "echo", input: { text: "hello" } }), textTurn("HELLO")]);
    const { code, stdout, stderr } = await runNodeScript(fixture("prompt-once.mjs"), {
      MODEL_URL: model.url,
      LANGFUSE_PUBLIC_KEY: "pk-lf-env",
      LANGFUSE_SECRET_KEY: "sk-lf-env",
      LANGFUSE_BASE_URL: otlp.url,
    });
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ subtype: "success" });

    // Asserted only now, after the process is gone: everything had arrived before it exited.
    const spans = otlp.spans;
    expect(spans.map(span => `${span.attributes["langfuse.observation.type"]}:${span.name}`).sort()).toEqual(
      ["chain:oneshot", "generation:m", "generation:m", "tool:echo"].sort(),
    );
    const root = spans.find(span => span.parentSpanId === undefined)!;
    expect(root.attributes["langfuse.trace.tags"]).toEqual(["agent-lattice", "short-lived"]);
    expect(new Set(spans.map(span => span.traceId)).size).toBe(1);
    expect(otlp.requests[0]!.authorization).toBe(
      `Basic ${Buffer.from("pk-lf-env:sk-lf-env").toString("base64")}`,
    );
  });
});
