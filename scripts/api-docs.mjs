// The API reference, generated from the types with TypeDoc into docs/api/ (not committed; CI builds it in
// packaging/test/api-docs.test.ts). One module per published package, named as users import it, each documented
// from its TypeScript sources; packages added under packages/ are picked up automatically.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Application, Converter } from "typedoc";
import { publicPackages, ROOT, SOURCE_CONDITION } from "./package-policy.mjs";

const out = join(ROOT, "docs/api");
/** Source entry file → the specifier users import it by ("@agent-lattice/core", "agent-lattice/testing", …). */
const entries = new Map();
for (const { dir, pkg } of publicPackages()) {
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const source = typeof target === "object" ? target?.[SOURCE_CONDITION] : undefined;
    // Sibling-only entries (./internal) are not public API.
    if (typeof source !== "string" || subpath === "./internal") continue;
    entries.set(
      join(ROOT, "packages", dir, source),
      subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
    );
  }
}

const app = await Application.bootstrapWithPlugins({
  name: "AgentLattice API",
  entryPoints: [...entries.keys()],
  entryPointStrategy: "resolve",
  tsconfig: join(ROOT, "tsconfig.typedoc.json"),
  excludePrivate: true,
  excludeInternal: true,
  readme: "none",
  out,
  sourceLinkTemplate: "https://github.com/agent-lattice/agent-lattice/blob/main/{path}#L{line}",
  logLevel: "Warn",
  validation: { notExported: true, invalidLink: true, rewrittenLink: true },
});
app.converter.on(Converter.EVENT_RESOLVE_BEGIN, context => {
  for (const module of context.project.children ?? []) {
    const file = module.sources?.[0]?.fullFileName;
    const name = file && entries.get(file);
    if (name) module.name = name;
  }
});

const project = await app.convert();
if (!project) throw new Error("TypeDoc could not convert the packages (see the errors above).");
// What `typedoc` on the command line also does: warn about types the docs reference but do not include (an
// unexported type in a public signature), broken {@link}s and the like. The packaging test fails on any warning.
app.validate(project);
rmSync(out, { recursive: true, force: true });
await app.generateDocs(project, out);
console.log(`API reference for ${entries.size} entry points written to docs/api/index.html`);
