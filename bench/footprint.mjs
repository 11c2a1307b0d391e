// Benchmark: install footprint as a user gets it. Packs the workspace packages, installs them with npm into
// an empty project (dependencies from the registry, zod as the user installs it) and measures node_modules.
// Targets: @agent-lattice/core <= 23 MB with its dependencies, the umbrella <= 40 MB.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

function pack(pkgDir, outDir) {
  run("pnpm", ["pack", "--pack-destination", outDir], join(root, pkgDir));
}

function installedMegabytes(tarballs) {
  const dir = mkdtempSync(join(tmpdir(), "al-footprint-"));
  try {
    run("npm", ["init", "-y"], dir);
    run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", ...tarballs, "zod@4"], dir);
    const kb = Number(run("du", ["-sk", "node_modules"], dir).split("\t")[0]);
    return +(kb / 1024).toFixed(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function runFootprint() {
  const out = mkdtempSync(join(tmpdir(), "al-packs-"));
  try {
    for (const pkg of [
      "packages/core",
      "packages/testing",
      "packages/builtin-tools",
      "packages/agent-lattice",
    ])
      pack(pkg, out);
    const tarball = prefix =>
      join(
        out,
        readdirSync(out).find(name => name.startsWith(prefix)),
      );
    const core = tarball("agent-lattice-core-");
    const testing = tarball("agent-lattice-testing-");
    const builtinTools = tarball("agent-lattice-builtin-tools-");
    const umbrella = tarball("agent-lattice-0");
    const report = {
      benchmark: "install footprint (npm install, incl. zod)",
      coreMB: installedMegabytes([core]),
      umbrellaMB: installedMegabytes([core, testing, builtinTools, umbrella]),
      target: "core <= 23 MB, umbrella <= 40 MB",
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) runFootprint();
