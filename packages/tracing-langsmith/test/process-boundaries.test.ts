// What a user's process sees: importing the adapter loads no langsmith (it loads when a tracer is created), and
// a short-lived process that prompts once and closes its tracer has delivered every run when it exits — with
// its configuration coming only from the standard LANGSMITH_* variables. Runs the built package (dist/).
import { fileURLToPath } from "node:url";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { packagesLoadedBy, runNodeScript } from "../../core/test/support/hosted-tracer-scenes.js";
import { mockModel, receiver } from "./helpers.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe("lazy loading", () => {
  it("importing @agent-lattice/tracing-langsmith loads neither langsmith nor OpenTelemetry", async () => {
    const loaded = await packagesLoadedBy(fixture("import-only.mjs"));
    expect(loaded.has("@agent-lattice/tracing-langsmith")).toBe(true); // the recorder works
    expect(loaded.has("langsmith")).toBe(false);
    expect([...loaded].filter(name => name.startsWith("@opentelemetry/"))).toEqual([]);
  });

  it("creating a tracer starts its worker thread, which loads langsmith", async () => {
    const loaded = await packagesLoadedBy(fixture("create-tracer.mjs"));
    expect(loaded.has("langsmith")).toBe(true);
  });

  it("with an injected RunTree the tracer runs in-process and loads langsmith when it is created", async () => {
    const loaded = await packagesLoadedBy(fixture("create-in-process-tracer.mjs"));
    expect(loaded.has("langsmith")).toBe(true);
  });
});

describe("a short-lived process (R4: close before exit)", () => {
  it("delivers every run of its one prompt before it exits, configured by LANGSMITH_* alone", async () => {
    const ls = await receiver();
    const model = await mockModel([toolTurn({ name: "echo", input: { text: "hello" } }), textTurn("HELLO")]);
    const { code, stdout, stderr } = await runNodeScript(fixture("prompt-once.mjs"), {
      MODEL_URL: model.url,
      LANGSMITH_TRACING: "true",
      LANGSMITH_ENDPOINT: ls.url,
      LANGSMITH_API_KEY: "env-key",
      LANGSMITH_PROJECT: "short-lived-project",
      LANGSMITH_WORKSPACE_ID: "workspace-7",
    });
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ subtype: "success" });

    // Asserted only now, after the process is gone: everything had arrived before it exited.
    const runs = ls.list();
    expect(runs.map(run => `${run.run_type}:${run.name}`).sort()).toEqual(
      ["chain:oneshot", "llm:m", "llm:m", "tool:echo"].sort(),
    );
    for (const run of runs) expect(run.end_time, `${run.name} was patched with its end`).toBeDefined();
    const root = runs.find(run => run.run_type === "chain")!;
    expect(root.outputs).toMatchObject({ subtype: "success", result: "HELLO" });
    expect(root.session_name).toBe("short-lived-project");
    expect(root.tags).toEqual(["agent-lattice", "short-lived"]);
    const ingest = ls.requests.filter(request => request.path.startsWith("/runs"));
    expect(ingest.length).toBeGreaterThan(0);
    for (const request of ingest) {
      expect(request.headers["x-api-key"]).toBe("env-key");
      expect(request.headers["x-tenant-id"]).toBe("workspace-7");
    }
  });
});
