// Importing @agent-lattice/mcp (and so, later, the agent-lattice umbrella that re-exports it) loads none of the
// MCP SDK; the SDK loads when a connect function runs. Runs the built package (dist/), as users import it.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { fixture } from "./helpers.js";

const built = fileURLToPath(new URL("../dist/index.js", import.meta.url));
// Records every module a process resolves (shared by the packages' lazy-loading tests).
const RECORD_LOADS = fileURLToPath(new URL("../../core/test/support/record-loads.mjs", import.meta.url));

describe("lazy loading of the MCP SDK", () => {
  it("import loads none of @modelcontextprotocol/sdk; the first connect does", async () => {
    expect(existsSync(built), "build the package first (pnpm --filter @agent-lattice/mcp build)").toBe(true);
    const dir = await mkdtemp(join(tmpdir(), "al-mcp-loads-"));
    const loadsFile = join(dir, "loads.txt");
    try {
      const run = spawnSync(
        process.execPath,
        ["--import", pathToFileURL(RECORD_LOADS).href, fixture("import-then-connect.mjs")],
        {
          env: { ...process.env, LOADS_FILE: loadsFile, PACKAGE_ENTRY: pathToFileURL(built).href },
          encoding: "utf8",
        },
      );
      expect(run.status, run.stderr).toBe(0);
      const lines = (await readFile(loadsFile, "utf8")).split("\n").filter(Boolean);
      const mark = lines.indexOf("MARK imported");
      expect(mark).toBeGreaterThan(0);
      const before = lines.slice(0, mark);
      const after = lines.slice(mark + 1);
      // The recorder works: the package and core were loaded before the mark.
      expect(before.some(url => url.includes("/packages/mcp/dist/"))).toBe(true);
      expect(before.some(url => url.includes("/packages/core/dist/"))).toBe(true);
      expect(before.filter(url => url.includes("/node_modules/@modelcontextprotocol/"))).toEqual([]);
      expect(before.filter(url => url.includes("/node_modules/zod/"))).toEqual([]);
      // Connecting loads the SDK's client.
      expect(after.some(url => url.includes("/@modelcontextprotocol/sdk/dist/esm/client/index.js"))).toBe(
        true,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
