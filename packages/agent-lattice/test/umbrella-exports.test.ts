// U1: `agent-lattice` re-exports every public name (values and types) of every package it depends on, at its
// root — except the offline test kit, which is exactly `agent-lattice/testing`. The packages are read from the
// umbrella's own dependencies, so a package added there is covered without touching this test.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const umbrellaDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const umbrella = JSON.parse(readFileSync(join(umbrellaDir, "package.json"), "utf8"));
const TEST_KIT = "@agent-lattice/testing";
/** Names the umbrella defines itself: createAgent/defineAgent with the built-in workspace as the default. */
const UMBRELLA_OWN = ["createAgent", "defineAgent"];

const packages = Object.keys(umbrella.dependencies).filter(name => name.startsWith("@agent-lattice/"));
const require = createRequire(join(umbrellaDir, "package.json"));

/** The TypeScript source of a package's root entry (its exports["."] source condition). */
function sourceEntry(name: string, subpath = "."): string {
  const pkgJson = require.resolve(`${name}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgJson, "utf8"));
  return join(dirname(pkgJson), pkg.exports[subpath]["@agent-lattice/source"]);
}

/** Every exported name (values and types) of each file, as the TypeScript checker sees it. */
function exportedNames(files: Record<string, string>): Record<string, string[]> {
  const program = ts.createProgram(Object.values(files), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    customConditions: ["@agent-lattice/source"],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  return Object.fromEntries(
    Object.entries(files).map(([key, file]) => {
      const source = program.getSourceFile(file);
      const symbol = source && checker.getSymbolAtLocation(source);
      if (!symbol) throw new Error(`TypeScript could not load ${file}`);
      return [
        key,
        checker
          .getExportsOfModule(symbol)
          .map(s => s.name)
          .sort(),
      ];
    }),
  );
}

describe("agent-lattice re-exports every public name of its packages (U1)", () => {
  const files: Record<string, string> = {
    root: join(umbrellaDir, "src/index.ts"),
    testing: join(umbrellaDir, "src/testing.ts"),
    ...Object.fromEntries(packages.map(name => [name, sourceEntry(name)])),
  };
  const names = exportedNames(files);

  it("depends on the packages it re-exports (at least core, the built-in tools and the test kit)", () => {
    expect(packages).toEqual(
      expect.arrayContaining(["@agent-lattice/core", "@agent-lattice/builtin-tools", TEST_KIT]),
    );
  });

  it("its root exports the union of the packages' exports (values and types), the test kit aside", () => {
    const union = new Set(packages.filter(name => name !== TEST_KIT).flatMap(name => names[name] ?? []));
    for (const own of UMBRELLA_OWN) union.add(own);
    expect(names.root).toEqual([...union].sort());
  });

  it("agent-lattice/testing exports exactly the test kit, and the root none of its own names", () => {
    expect(names.testing).toEqual(names[TEST_KIT]);
    const elsewhere = new Set(packages.filter(name => name !== TEST_KIT).flatMap(name => names[name] ?? []));
    const kitOnly = (names[TEST_KIT] ?? []).filter(name => !elsewhere.has(name));
    expect(kitOnly.length).toBeGreaterThan(10);
    expect(names.root?.filter(name => kitOnly.includes(name))).toEqual([]);
  });

  it("at run time too: every value export of every package is the same object at the umbrella's root", async () => {
    const root = await import("agent-lattice");
    const testing = await import("agent-lattice/testing");
    for (const name of packages) {
      const mod: Record<string, unknown> = await import(name);
      const target: Record<string, unknown> = name === TEST_KIT ? testing : root;
      for (const [key, value] of Object.entries(mod)) {
        if (name !== TEST_KIT && UMBRELLA_OWN.includes(key)) continue;
        expect(target[key], `${name} ${key}`).toBe(value);
      }
    }
  });
});
