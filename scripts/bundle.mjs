// Bundles a package's entry points (every `exports` subpath whose "@agent-lattice/source" condition names a
// src/*.ts file) into ESM files under dist/, with every dependency left external. One build for all entries, so
// modules they share land in one shared chunk and keep one identity (a public and an internal entry see the
// same module state).
// Why bundle: Node's ESM loader pays per module; one file per entry keeps `import "agent-lattice"` cheap (the
// cold-start target), while tsc still emits the .d.ts files. Run from a package directory.
// Each exports entry also gets a CommonJS face for `require()`: `<entry>.cjs` hands back the ESM build itself
// (Node ^20.19 || >=22.12 can require() an ES module without top-level await), so `require` and `import` share
// one module instance, and `<entry>.d.cts` gives TypeScript's CommonJS resolution the same declarations.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { basename } from "node:path";
import { build } from "rolldown";

const builtins = new Set([...builtinModules, ...builtinModules.map(name => `node:${name}`)]);

/**
 * { "index": "src/index.ts", "internal": "src/internal.ts", … } from the package's exports map, plus each `bin`
 * that points at dist/<name>.js with a src/<name>.ts beside it (a command's entry; its #! line is kept).
 * `exported` names the entries of the exports map (those get a require() face; commands do not).
 */
function entryPoints() {
  const pkg = JSON.parse(readFileSync("package.json", "utf8"));
  const input = {};
  for (const target of Object.values(pkg.exports ?? {})) {
    const source = typeof target === "object" ? target["@agent-lattice/source"] : undefined;
    if (typeof source === "string" && source.endsWith(".ts")) input[basename(source, ".ts")] = source;
  }
  const exported = Object.keys(input);
  const bins = typeof pkg.bin === "string" ? [pkg.bin] : Object.values(pkg.bin ?? {});
  for (const bin of bins) {
    const name = /^(?:\.\/)?dist\/([\w-]+)\.js$/.exec(bin)?.[1];
    if (name && existsSync(`src/${name}.ts`)) input[name] = `src/${name}.ts`;
  }
  return Object.keys(input).length
    ? { input, exported }
    : { input: { index: "src/index.ts" }, exported: ["index"] };
}

const { input, exported } = entryPoints();

// Chunk names carry a content hash, so a rebuild writes new ones beside the old: remove the old first, or they
// would be packed and published too (dead code, measured in the install footprint). Source maps left by an
// older build go too: none is written any more (see `sourcemap` below).
if (existsSync("dist")) {
  for (const file of readdirSync("dist"))
    if (/^shared-.*\.js$/.test(file) || file.endsWith(".js.map")) rmSync(`dist/${file}`, { force: true });
}

await build({
  input,
  platform: "node",
  // Bare specifiers are dependencies (or Node built-ins): resolved by the consumer, never inlined.
  external: id => builtins.has(id) || !(id.startsWith(".") || id.startsWith("/")),
  output: {
    dir: "dist",
    format: "esm",
    // No source maps: the output is unminified ESM that keeps our names and comments, so a stack trace into
    // dist/ reads as it stands, and maps would be over half of every tarball (they are twice the code's size) —
    // install footprint every user pays for. Our own tests run the TypeScript sources directly.
    sourcemap: false,
    entryFileNames: "[name].js",
    chunkFileNames: "shared-[hash].js",
  },
  logLevel: "warn",
});

for (const name of exported) {
  writeFileSync(
    `dist/${name}.cjs`,
    `"use strict";\n// require() of the ES module build (Node ^20.19 || >=22.12): one module instance for require and import.\nmodule.exports = require("./${name}.js");\n`,
  );
  writeFileSync(`dist/${name}.d.cts`, `export * from "./${name}.js";\n`);
}
