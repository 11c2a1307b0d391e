// Install check 4: every workspace package's own test command passes by itself in a clean copy of the
// repository (what a contributor gets from a fresh clone: no dist/, no turbo cache), after a frozen-lockfile
// install. Catches a package whose tests lean on another package having been built, or on an undeclared tool.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanCopy } from "../src/clean-copy.js";
import { explain, ROOT, readJson, runCommand } from "../src/workspace.js";

/** Every workspace package with a test script: packages/* and examples. */
const testable = [...readdirSync(join(ROOT, "packages")).map(dir => `packages/${dir}`), "examples"].filter(
  dir => {
    try {
      return Boolean(readJson(join(ROOT, dir, "package.json")).scripts?.test);
    } catch {
      return false;
    }
  },
);

describe("each package's `pnpm --filter <package> test` passes on its own, from a clean copy", () => {
  let copy: string;
  beforeAll(async () => {
    copy = await cleanCopy();
    const install = await runCommand("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], {
      cwd: copy,
      env: { CI: "true", npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" },
    });
    expect(install.code, explain(install)).toBe(0);
  });
  afterAll(() => {
    if (copy) rmSync(dirname(copy), { recursive: true, force: true });
  });

  it.each(testable)("%s", async dir => {
    const name = readJson(join(ROOT, dir, "package.json")).name as string;
    const run = await runCommand("pnpm", ["--filter", name, "test"], {
      cwd: copy,
      env: { CI: "true", TURBO_TELEMETRY_DISABLED: "1" },
      timeoutMs: 900_000,
    });
    expect(run.code, explain(run)).toBe(0);
    expect(run.stdout).toMatch(/Test Files\s+.*\d+ passed/);
    expect(run.stdout).not.toMatch(/Test Files\s+.*\d+ failed/);
  });
});
