import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { ROOT, readJson } from "./workspace.js";

/** A workspace package with a test script (packages/* and examples), by its directory relative to the root. */
export interface TestablePackage {
  dir: string;
  name: string;
  testScript: string;
  declared: Set<string>;
}

export function testablePackages(): TestablePackage[] {
  const dirs = [...readdirSync(join(ROOT, "packages")).map(dir => `packages/${dir}`), "examples"];
  return dirs.flatMap(dir => {
    let pkg: Record<string, Record<string, string> | string | undefined>;
    try {
      pkg = readJson(join(ROOT, dir, "package.json"));
    } catch {
      return [];
    }
    const scripts = (pkg.scripts ?? {}) as Record<string, string>;
    if (!scripts.test) return [];
    const declared = new Set(
      ["dependencies", "devDependencies", "peerDependencies"].flatMap(field =>
        Object.keys((pkg[field] ?? {}) as Record<string, string>),
      ),
    );
    return [{ dir, name: pkg.name as string, testScript: scripts.test, declared }];
  });
}

/**
 * The test scripts a package may have: vitest alone (its tests read workspace packages from their sources), or
 * first a turbo build of exactly its own dependency closure (`--filter=<itself>...`: the package and what it
 * depends on, nothing else), for tests that run built code in child processes.
 */
export function testScriptProblem(pkg: TestablePackage): string | undefined {
  const alone = "vitest run";
  const closure = `turbo run build --filter=${pkg.name}... --output-logs=errors-only && vitest run`;
  if (pkg.testScript === alone || pkg.testScript === closure) return undefined;
  return `${pkg.dir}: test script is ${JSON.stringify(pkg.testScript)}; expected "${alone}" or "${closure}"`;
}

const SOURCE = /\.(?:[cm]?[jt]sx?)$/;
const isBuiltin = (specifier: string) =>
  specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0] as string);
const packageName = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    if (entry.name === "node_modules" || entry.name === "dist") return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/**
 * Every module a package's own files (sources, tests, configs, scripts) import that a fresh clone would not give
 * that package: a bare specifier it does not declare (under pnpm it may still resolve through the root's
 * node_modules, hiding the gap), or a relative path into another workspace package it does not depend on, or into
 * any package's build output. Imports are read by TypeScript's scanner, so strings and comments do not count.
 * `test/pack-smoke.mjs` is skipped: it runs in an npm project beside @agent-lattice/core, not in the workspace.
 */
export function undeclaredImports(pkg: TestablePackage): string[] {
  const root = join(ROOT, pkg.dir);
  const problems: string[] = [];
  const workspaceNames = new Map(testablePackages().map(other => [other.dir, other.name]));
  for (const file of sourceFiles(root)) {
    const where = relative(ROOT, file);
    if (where === `${pkg.dir}/test/pack-smoke.mjs`) continue;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (specifier.startsWith(".")) {
        const target = relative(ROOT, resolve(dirname(file), specifier));
        if (target.startsWith(`${pkg.dir}${sep}`)) continue;
        const owner = [...workspaceNames.keys()].find(dir => target.startsWith(`${dir}${sep}`));
        if (target.split(sep).includes("dist")) problems.push(`${where}: ${specifier} reads build output`);
        else if (owner && !pkg.declared.has(workspaceNames.get(owner) as string))
          problems.push(`${where}: ${specifier} reaches into ${owner}, which ${pkg.name} does not depend on`);
        continue;
      }
      if (isBuiltin(specifier)) continue;
      const name = packageName(specifier);
      if (name !== pkg.name && !pkg.declared.has(name))
        problems.push(`${where}: imports ${specifier}, not declared in ${pkg.dir}/package.json`);
    }
  }
  return problems;
}

/**
 * The packages whose test command runs from a clean copy in this run. A full round costs minutes on two cores,
 * so each run takes one package, picked by the commit being tested (a given commit always checks the same one,
 * and successive commits spread over all of them). AGENT_LATTICE_STANDALONE="all" runs every package;
 * a comma-separated list of directories (e.g. "packages/core,examples") runs those.
 */
export function standaloneSelection(all: TestablePackage[], commit: string): TestablePackage[] {
  const wanted = process.env.AGENT_LATTICE_STANDALONE?.trim();
  if (wanted === "all") return all;
  if (wanted) {
    const dirs = wanted.split(",").map(dir => dir.trim());
    const unknown = dirs.filter(dir => !all.some(pkg => pkg.dir === dir));
    if (unknown.length) throw new Error(`AGENT_LATTICE_STANDALONE names no testable package: ${unknown}`);
    return all.filter(pkg => dirs.includes(pkg.dir));
  }
  const index = Number.parseInt(commit.slice(0, 8) || "0", 16) % all.length;
  return [all[index] as TestablePackage];
}
