// What a user's process sees: importing the adapter loads no langsmith (it loads when a tracer is created), and
// a short-lived process that prompts once and closes its tracer has delivered every run when it exits — with
// its configuration coming only from the standard LANGSMITH_* variables. Runs the built package (dist/).
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { mockModel, receiver } from "./helpers.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Package names whose modules a fresh process resolved while running `script`. */
async function packagesLoadedBy(script: string): Promise<Set<string>> {
  const dir = await mkdtemp(join(tmpdir(), "al-ls-loads-"));
  const loadsFile = join(dir, "loads.txt");
  try {
    const run = spawnSync(process.execPath, ["--import", fixture("record-loads.mjs"), fixture(script)], {
      env: { ...process.env, LOADS_FILE: loadsFile },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    const urls = (await readFile(loadsFile, "utf8").catch(() => "")).split("\n").filter(Boolean);
    // The last node_modules segment names the package (pnpm resolves to node_modules/.pnpm/<id>/node_modules/<name>).
    const names = urls.map(
      url =>
        /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ??
        /\/packages\/([^/]+)\/dist\//.exec(url)?.[1]?.replace(/^/, "@agent-lattice/"),
    );
    return new Set(names.filter((name): name is string => !!name));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("lazy loading", () => {
  it("importing @agent-lattice/tracing-langsmith loads neither langsmith nor OpenTelemetry", async () => {
    const loaded = await packagesLoadedBy("import-only.mjs");
    expect(loaded.has("@agent-lattice/tracing-langsmith")).toBe(true); // the recorder works
    expect(loaded.has("langsmith")).toBe(false);
    expect([...loaded].filter(name => name.startsWith("@opentelemetry/"))).toEqual([]);
  });

  it("creating a tracer starts its worker thread, which loads langsmith", async () => {
    const loaded = await packagesLoadedBy("create-tracer.mjs");
    expect(loaded.has("langsmith")).toBe(true);
  });

  it("with an injected RunTree the tracer runs in-process and loads langsmith when it is created", async () => {
    const loaded = await packagesLoadedBy("create-in-process-tracer.mjs");
    expect(loaded.has("langsmith")).toBe(true);
  });
});

describe("a short-lived process (R4: close before exit)", () => {
  it("delivers every run of its one prompt before it exits, configured by LANGSMITH_* alone", async () => {
    const ls = await receiver();
    const model = await mockModel([toolTurn({ name: "echo", input: { text: "hello" } }), textTurn("HELLO")]);
    const child = spawn(process.execPath, [fixture("prompt-once.mjs")], {
      env: {
        ...process.env,
        MODEL_URL: model.url,
        LANGSMITH_TRACING: "true",
        LANGSMITH_ENDPOINT: ls.url,
        LANGSMITH_API_KEY: "env-key",
        LANGSMITH_PROJECT: "short-lived-project",
        LANGSMITH_WORKSPACE_ID: "workspace-7",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", chunk => (stdout += chunk));
    child.stderr.on("data", chunk => (stderr += chunk));
    const code = await new Promise(resolve => child.on("exit", resolve));
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
