import { defineConfig } from "vitest/config";

/**
 * Tests run against the TypeScript sources of every workspace package (not their dist/), so a
 * change is tested without a rebuild. Each package.json exports map has a "@agent-lattice/source"
 * condition pointing at src/; only our test runner and typechecker ask for it.
 */
export const SOURCE_CONDITION = "@agent-lattice/source";

export interface PackageTestOptions {
  /** Also run type tests (test/**\/*.test-d.ts) with vitest's typechecker. */
  typecheck?: boolean;
}

export function packageTestConfig(name: string, options: PackageTestOptions = {}) {
  const conditions = [SOURCE_CONDITION, "module", "node", "import", "default"];
  return defineConfig({
    resolve: { conditions },
    // Vitest also hands the SSR conditions to its workers as Node --conditions, where "import" would apply to
    // require() too: a CommonJS package requiring a dual package (pg → pg-pool) would get its ESM wrapper and break.
    // Vite adds import/require by itself wherever it resolves, so leaving "import" out here changes nothing else.
    ssr: {
      resolve: {
        conditions: conditions.filter(condition => condition !== "import"),
        externalConditions: ["node", "import", "default"],
      },
    },
    test: {
      name,
      include: ["test/**/*.test.ts"],
      ...(options.typecheck
        ? { typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" } }
        : {}),
      testTimeout: 20_000,
      hookTimeout: 20_000,
      // Tests spawn servers and child processes; two cores are all CI has.
      pool: "forks",
      // Workspace packages are symlinked into node_modules; inline them so they load from src/ through the
      // source condition instead of being externalized to a (possibly stale) dist/.
      server: { deps: { inline: [/@agent-lattice\//, /packages\/[^/]+\/src\//, "agent-lattice"] } },
    },
  });
}
