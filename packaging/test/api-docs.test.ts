// The API reference (TypeDoc, `pnpm api-docs`) builds from the types of every published package.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { explain, ROOT, runCommand } from "../src/workspace.js";

describe("pnpm api-docs", () => {
  it("writes docs/api with one module per public entry point, documenting their exports", async () => {
    const run = await runCommand("pnpm", ["run", "api-docs"], { cwd: ROOT });
    expect(run.code, explain(run)).toBe(0);
    expect(run.stderr).not.toMatch(/\[error\]/);
    // No warnings either: a public signature naming an unexported type, a broken {@link}, …
    expect(`${run.stdout}\n${run.stderr}`, explain(run)).not.toMatch(/\[warning\]/);
    const modules = readdirSync(join(ROOT, "docs/api/modules"));
    for (const page of ["agent-lattice.html", "agent-lattice_testing.html", "_agent-lattice_core.html"]) {
      expect(modules).toContain(page);
    }
    const core = readFileSync(join(ROOT, "docs/api/modules/_agent-lattice_core.html"), "utf8");
    for (const name of ["createBareAgent", "tool", "AgentLatticeError", "ModelClient"])
      expect(core).toContain(name);
    expect(existsSync(join(ROOT, "docs/api/functions"))).toBe(true);
    expect(readdirSync(join(ROOT, "docs/api/functions")).some(file => file.includes("createAgent"))).toBe(
      true,
    );
  });
});
