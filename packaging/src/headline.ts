import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { ROOT } from "./workspace.js";

/** The README's headline program: its first ```ts block, as written. */
export function readmeHeadline(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no ```ts block");
  return block;
}

const compile = (source: string, module: ts.ModuleKind) =>
  ts.transpileModule(source, {
    compilerOptions: { module, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    reportDiagnostics: false,
  }).outputText;

/** The program as an ES module (.mjs), types stripped and nothing else changed. */
export function asEsm(source: string): string {
  return compile(source, ts.ModuleKind.ESNext);
}

/**
 * The program as CommonJS (.cjs) that a user writing `require()` code would have: its imports become require()
 * calls and the rest (which awaits at top level) runs inside an async main().
 */
export function asCommonJs(source: string): string {
  const file = ts.createSourceFile("headline.ts", source, ts.ScriptTarget.ES2022);
  const imports = file.statements.filter(ts.isImportDeclaration);
  const bodyStart = imports.at(-1)?.end ?? 0;
  const wrapped =
    `${source.slice(0, bodyStart)}\n\nasync function main() {\n${source.slice(bodyStart)}\n}\n\n` +
    "main().catch(error => {\n  console.error(error);\n  process.exitCode = 1;\n});\n";
  const output = compile(wrapped, ts.ModuleKind.CommonJS);
  if (!/require\("agent-lattice"\)/.test(output))
    throw new Error(`expected require("agent-lattice") in:\n${output}`);
  return output;
}
