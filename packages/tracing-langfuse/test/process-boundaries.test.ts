// What a user's process sees: importing the adapter loads neither @langfuse/tracing nor OpenTelemetry (they load
// when a tracer is created), and a short-lived process wired as the README says, that prompts once and closes
// its tracer, has delivered every span when it exits. Runs the built package (dist/).
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
  it("importing @agent-lattice/tracing-langfuse loads neither @langfuse/* nor OpenTelemetry", async () => {
    const loaded = await packagesLoadedBy("import-only.mjs");
    expect(loaded.has("@agent-lattice/tracing-langfuse")).toBe(true); // the recorder works
    expect(
      [...loaded].filter(name => name.startsWith("@langfuse/") || name.startsWith("@opentelemetry/")),
    ).toEqual([]);
  });

  it("creating a tracer loads @langfuse/tracing and @opentelemetry/api", async () => {
    const loaded = await packagesLoadedBy("create-tracer.mjs");
    expect(loaded.has("@langfuse/tracing")).toBe(true);
    expect(loaded.has("@opentelemetry/api")).toBe(true);
  });
});

describe("a short-lived process (R5: flush/close drain the span processor)", () => {
  it("delivers every span of its one prompt before it exits", async () => {
    const otlp = await receiver();
    const model = await mockModel([toolTurn({ name: "echo", input: { text: "hello" } }), textTurn("HELLO")]);
    const child = spawn(process.execPath, [fixture("prompt-once.mjs")], {
      env: {
        ...process.env,
        MODEL_URL: model.url,
        LANGFUSE_PUBLIC_KEY: "pk-lf-env",
        LANGFUSE_SECRET_KEY: "sk-lf-env",
        LANGFUSE_BASE_URL: otlp.url,
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
