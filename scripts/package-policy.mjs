// The publishing policy every package under packages/ follows, in one place: what its package.json must say so
// that it installs and resolves the same way for every user (import and require, Node ^20.19 || >=22.12),
// carries its LICENSE, and points back at this repository. New packages are picked up automatically.
//
//   node scripts/package-policy.mjs          lists every violation (exit 1 when there is one)
//   node scripts/package-policy.mjs --fix    rewrites the package.json files (and copies LICENSE) to comply
//
// packaging/test/package-policy.test.ts runs the check in CI.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const REPOSITORY = "https://github.com/agent-lattice/agent-lattice";
export const NODE_RANGE = "^20.19.0 || >=22.12.0";
/** zod 3.25 ships the zod 4 API as `zod/v4`, which is all the packages use. */
export const ZOD_PEER_RANGE = "^3.25.76 || ^4";
export const SOURCE_CONDITION = "@agent-lattice/source";
const LICENSE_FILE = "LICENSE";

/** Every package directory under packages/ (published or not), sorted. */
export function packageDirs() {
  return readdirSync(join(ROOT, "packages"), { withFileTypes: true })
    .filter(entry => entry.isDirectory() && existsSync(join(ROOT, "packages", entry.name, "package.json")))
    .map(entry => entry.name)
    .sort();
}

export function readPackageJson(dir) {
  return JSON.parse(readFileSync(join(ROOT, "packages", dir, "package.json"), "utf8"));
}

/** The packages users install: everything under packages/ that is not private. */
export function publicPackages() {
  return packageDirs()
    .map(dir => ({ dir, pkg: readPackageJson(dir) }))
    .filter(({ pkg }) => !pkg.private);
}

/** The canonical exports entry for a source file `src/<name>.ts`: types per condition, require() and import. */
export function exportEntry(source) {
  const name = source.replace(/^\.\/src\//, "").replace(/\.ts$/, "");
  return {
    [SOURCE_CONDITION]: source,
    import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
    require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
    default: `./dist/${name}.js`,
  };
}

const isInternal = name => name === "agent-lattice" || name.startsWith("@agent-lattice/");
/** An exact version ("1.2.3") is a pin; everything else (^, ~, >=, ||, x-ranges) is a range. */
const isExactPin = spec => /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec);

/** The package.json the policy asks for, given the current one. Fields the policy does not own are kept. */
const NO_SOURCE_MAPS = "!**/*.map";

export function expectedPackageJson(dir, pkg) {
  const next = { ...pkg };
  next.license = "MIT";
  next.author = "AgentLattice contributors";
  next.homepage = `${REPOSITORY}/tree/main/packages/${dir}#readme`;
  next.repository = { type: "git", url: `git+${REPOSITORY}.git`, directory: `packages/${dir}` };
  next.bugs = { url: `${REPOSITORY}/issues` };
  next.engines = { ...pkg.engines, node: NODE_RANGE };
  if (typeof next.sideEffects !== "boolean" && !Array.isArray(next.sideEffects)) next.sideEffects = false;
  // Never source maps: the build writes none, and a stale one left in dist/ (an older build, or a build cache
  // restored over it) must not reach the tarball.
  next.files = [...new Set([...(pkg.files ?? ["dist"]), "README.md", LICENSE_FILE, NO_SOURCE_MAPS])];
  next.publishConfig = { ...pkg.publishConfig, access: "public" };

  const exportsMap = {};
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const source = typeof target === "object" ? target?.[SOURCE_CONDITION] : undefined;
    exportsMap[subpath] = typeof source === "string" ? exportEntry(source) : target;
  }
  exportsMap["./package.json"] = "./package.json";
  next.exports = exportsMap;
  const root = exportsMap["."];
  if (root && typeof root === "object" && root.import) next.types = root.import.types;

  for (const field of ["dependencies", "peerDependencies"]) {
    if (!pkg[field]) continue;
    next[field] = Object.fromEntries(
      Object.entries(pkg[field]).map(([name, spec]) => {
        // Internal peers span the fixed group's major (`^0` while 0.x): an exact-caret peer would fall out of range
        // at every minor release, and changesets then bumps every peer dependent a major (0.1.0 → 1.0.0).
        if (isInternal(name) && field === "peerDependencies")
          return [name, `workspace:^${String(pkg.version ?? "0").split(".")[0]}`];
        if (isInternal(name)) return [name, "workspace:^"];
        if (name === "zod" && field === "peerDependencies") return [name, ZOD_PEER_RANGE];
        return [name, isExactPin(spec) ? `^${spec}` : spec];
      }),
    );
  }
  return orderFields(next);
}

const FIELD_ORDER = [
  "name",
  "version",
  "private",
  "description",
  "keywords",
  "license",
  "author",
  "homepage",
  "repository",
  "bugs",
  "type",
  "sideEffects",
  "exports",
  "types",
  "bin",
  "files",
  "engines",
  "publishConfig",
  "scripts",
  "dependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "devDependencies",
];

function orderFields(pkg) {
  const ordered = {};
  for (const key of FIELD_ORDER) if (key in pkg) ordered[key] = pkg[key];
  for (const key of Object.keys(pkg)) if (!(key in ordered)) ordered[key] = pkg[key];
  return ordered;
}

/** Markdown links and images whose target is neither absolute nor an in-page anchor. */
export function relativeLinks(markdown) {
  const links = [];
  for (const match of markdown.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)) {
    const target = match[1];
    if (!/^(https?:|mailto:|#)/.test(target)) links.push(target);
  }
  return links;
}

/** Every way the package in packages/<dir> departs from the policy, as sentences that say what to do. */
export function policyProblems(dir) {
  const pkg = readPackageJson(dir);
  if (pkg.private) return [];
  const problems = [];
  const expected = expectedPackageJson(dir, pkg);
  for (const key of Object.keys(expected)) {
    if (JSON.stringify(pkg[key]) !== JSON.stringify(expected[key])) {
      problems.push(
        `${dir}/package.json "${key}" is ${JSON.stringify(pkg[key])}, expected ${JSON.stringify(expected[key])}`,
      );
    }
  }
  const rootLicense = readFileSync(join(ROOT, LICENSE_FILE), "utf8");
  const licensePath = join(ROOT, "packages", dir, LICENSE_FILE);
  if (!existsSync(licensePath) || readFileSync(licensePath, "utf8") !== rootLicense) {
    problems.push(`${dir}/LICENSE is missing or differs from the repository's LICENSE`);
  }
  const readmePath = join(ROOT, "packages", dir, "README.md");
  if (!existsSync(readmePath)) problems.push(`${dir}/README.md is missing`);
  else {
    for (const link of relativeLinks(readFileSync(readmePath, "utf8"))) {
      problems.push(
        `${dir}/README.md links to "${link}", which breaks on the npm registry's page: use ${REPOSITORY}/blob/main/...`,
      );
    }
  }
  return problems;
}

function fix() {
  const rootLicense = readFileSync(join(ROOT, LICENSE_FILE), "utf8");
  for (const { dir, pkg } of publicPackages()) {
    const path = join(ROOT, "packages", dir, "package.json");
    writeFileSync(path, `${JSON.stringify(expectedPackageJson(dir, pkg), null, 2)}\n`);
    writeFileSync(join(ROOT, "packages", dir, LICENSE_FILE), rootLicense);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--fix")) fix();
  const problems = packageDirs().flatMap(policyProblems);
  for (const problem of problems) console.error(problem);
  if (problems.length) {
    console.error(
      `\n${problems.length} problem(s). \`node scripts/package-policy.mjs --fix\` fixes package.json and LICENSE; README links are yours to fix.`,
    );
    process.exitCode = 1;
  } else console.log(`package policy: ${publicPackages().length} packages comply`);
}
