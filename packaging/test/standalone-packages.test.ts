// Install check 4: `pnpm --filter <package> test` passes on its own from a fresh clone, for every package.
// What makes it true is checked for every package on every run, cheaply: its test script builds nothing beyond its
// own dependency closure, and everything its files import is declared in its package.json (or lies in a workspace
// package it depends on). The real thing — the package's own test command in a clean copy of the repository (no
// dist/, no turbo cache) after a frozen-lockfile install — runs for one package per commit (see
// standaloneSelection; AGENT_LATTICE_STANDALONE=all runs every package, about five minutes on two cores).
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanCopy } from "../src/clean-copy.js";
import {
  standaloneSelection,
  testablePackages,
  testScriptProblem,
  undeclaredImports,
} from "../src/standalone.js";
import { explain, ROOT, runCommand } from "../src/workspace.js";

const testable = testablePackages();
const head = await runCommand("git", ["rev-parse", "HEAD"], { cwd: ROOT });
const selected = standaloneSelection(testable, head.stdout.trim());

describe("every package can test on its own", () => {
  it("finds the workspace's packages", () => {
    expect(testable.map(pkg => pkg.dir)).toEqual(
      expect.arrayContaining(["packages/core", "packages/agent-lattice", "examples"]),
    );
  });

  it.each(testable.map(pkg => [pkg.dir, pkg] as const))(
    "%s: its test script builds only its own dependency closure",
    (_dir, pkg) => {
      expect(testScriptProblem(pkg)).toBeUndefined();
    },
  );

  it.each(testable.map(pkg => [pkg.dir, pkg] as const))(
    "%s: imports only what its package.json declares",
    (_dir, pkg) => {
      expect(undeclaredImports(pkg)).toEqual([]);
    },
  );
});

describe(`\`pnpm --filter <package> test\` from a clean copy (this run: ${selected.map(p => p.dir).join(", ")})`, () => {
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

  it.each(selected.map(pkg => [pkg.dir, pkg] as const))("%s", async (_dir, pkg) => {
    const run = await runCommand("pnpm", ["--filter", pkg.name, "test"], {
      cwd: copy,
      env: { CI: "true", TURBO_TELEMETRY_DISABLED: "1" },
      timeoutMs: 900_000,
    });
    expect(run.code, explain(run)).toBe(0);
    expect(run.stdout).toMatch(/Test Files\s+.*\d+ passed/);
    expect(run.stdout).not.toMatch(/Test Files\s+.*\d+ failed/);
  });
});

describe("the static checks catch what they are for", () => {
  const core = testable.find(pkg => pkg.dir === "packages/core");
  it("a test script that builds the whole workspace is refused", () => {
    if (!core) throw new Error("packages/core is missing");
    expect(testScriptProblem({ ...core, testScript: "turbo run build && vitest run" })).toMatch(/expected/);
  });
  it("an import the package does not declare is reported", () => {
    if (!core) throw new Error("packages/core is missing");
    const declared = new Set([...core.declared].filter(name => name !== "yaml"));
    expect(undeclaredImports({ ...core, declared }).join("\n")).toMatch(/imports yaml, not declared/);
  });
});
