// "You pay only for what you use": importing agent-lattice and creating an agent loads none of the heavy or
// feature-specific dependencies; each loads when its feature is first used. Runs the built package (dist/).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startMockAnthropicServer, textTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";

const execFileAsync = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
// Records every module a process resolves (shared by the packages' lazy-loading tests).
const RECORD_LOADS = fileURLToPath(new URL("../../core/test/support/record-loads.mjs", import.meta.url));

/** Package names whose modules a fresh process resolved while running `script`. */
async function packagesLoadedBy(script: string, args: string[] = []): Promise<Set<string>> {
  const dir = await mkdtemp(join(tmpdir(), "al-loads-"));
  const loadsFile = join(dir, "loads.txt");
  try {
    // Asynchronous: the positive control's mock server runs in this process and must keep answering.
    await execFileAsync(process.execPath, ["--import", RECORD_LOADS, fixture(script), ...args], {
      env: { ...process.env, LOADS_FILE: loadsFile },
      encoding: "utf8",
    });
    const urls = (await readFile(loadsFile, "utf8").catch(() => "")).split("\n").filter(Boolean);
    // Dependencies resolve under node_modules/<name>/ — the last such segment: under pnpm the first one is
    // node_modules/.pnpm/<name>@<version>/ — and workspace packages (symlinked) under packages/<dir>/.
    const names = urls.map(
      url =>
        /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ??
        /\/packages\/([^/]+)\/dist\//.exec(url)?.[1]?.replace(/^(?!agent-lattice$)/, "@agent-lattice/"),
    );
    return new Set(names.filter((name): name is string => !!name));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("lazy loading (cost of what you use)", () => {
  it("import + createAgent() loads none of the SDK client, validators, parsers or feature adapters", async () => {
    const loaded = await packagesLoadedBy("import-and-create.mjs");
    expect(loaded.has("@agent-lattice/core")).toBe(true); // the recorder works
    for (const heavy of [
      "@anthropic-ai/sdk", // loaded on the first model request
      "zod", // only if the host's own tools use it
      "yaml", // loadSkill()
      "picomatch", // first LS / Glob / Grep / Bash glob
      "unbash", // first Bash call
      "@modelcontextprotocol/sdk",
      "langsmith",
      "@langfuse/tracing",
      "@opentelemetry/api",
      "better-sqlite3",
      "pg",
      "playwright-core",
    ]) {
      expect(loaded.has(heavy), `${heavy} was loaded`).toBe(false);
    }
  });

  it("the recorder sees dependencies: the first model request loads the Anthropic SDK", async () => {
    const server = await startMockAnthropicServer({ script: [textTurn("hello")] });
    try {
      const loaded = await packagesLoadedBy("first-request.mjs", [server.url]);
      expect(loaded.has("@anthropic-ai/sdk")).toBe(true);
    } finally {
      await server.close();
    }
  });
});
