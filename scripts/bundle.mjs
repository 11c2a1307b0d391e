// Bundles a package's src/index.ts into one ESM file, dist/index.js, with every dependency left external.
// Why: Node's ESM loader pays per module; one file per package keeps `import "agent-lattice"` cheap (the
// cold-start target), while tsc still emits the .d.ts files. Run from a package directory.
import { builtinModules } from "node:module";
import { build } from "rolldown";

const builtins = new Set([...builtinModules, ...builtinModules.map(name => `node:${name}`)]);

await build({
  input: "src/index.ts",
  platform: "node",
  // Bare specifiers are dependencies (or Node built-ins): resolved by the consumer, never inlined.
  external: id => builtins.has(id) || !(id.startsWith(".") || id.startsWith("/")),
  output: { file: "dist/index.js", format: "esm", sourcemap: true },
  logLevel: "warn",
});
