// Install checks 2 and 3 (U2): packages installed from their packed tarballs with npm, outside the workspace,
// beside @agent-lattice/core and their own peers only — never the umbrella. Each package under packages/ (core
// and the umbrella aside) is picked up automatically and must ship a smoke program, packages/<dir>/test/pack-smoke.mjs,
// that does something real with it through core. Its peer dependencies are installed at the lowest and at the
// highest version of their ranges (optional peers only when the smoke program imports them).
// Check 2 — core + mailbox-sqlite + team + better-sqlite3 only, a team runs on SQLite — is mailbox-sqlite's entry:
// its peers are exactly team and better-sqlite3.
import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNpmProject, type NpmProject, rangeEnds } from "../src/npm-project.js";
import { publishedPackages, tarballsFor } from "../src/tarballs.js";
import { explain, type PackageInfo, ROOT } from "../src/workspace.js";

const packages = publishedPackages();
const isInternal = (name: string) => name === "agent-lattice" || name.startsWith("@agent-lattice/");
const adapters = [...packages.values()].filter(
  p => p.name !== "@agent-lattice/core" && p.name !== "agent-lattice",
);

/**
 * What a smoke program needs beyond the package, core and their peers, as its README tells users to install it:
 * the test kit's mock server for the team run, the OpenTelemetry SDK that registers Langfuse's span processor.
 */
const SMOKE_EXTRAS: Record<string, { packages?: string[]; specs?: string[] }> = {
  team: { packages: ["@agent-lattice/testing"] },
  "tracing-langfuse": { specs: ["@opentelemetry/sdk-trace-node@^2"] },
};

/**
 * Where the ecosystem caps a peer range below its published top, the highest end is the highest version users can
 * actually install beside the rest (npm refuses the others). Each cap says why; drop it when the cause goes away.
 */
const INSTALLABLE_CAPS: Record<string, { below: string; why: string }> = {
  "@opentelemetry/api": {
    below: "1.10.0",
    why: "@opentelemetry/core 2.x (under @langfuse/otel and the OpenTelemetry SDK) peers on >=1.0.0 <1.10.0",
  },
};

/** Check 2 is mailbox-sqlite installed alone; its title says so. */
const TITLES: Record<string, string> = {
  "mailbox-sqlite": "check 2: core + mailbox-sqlite + team + better-sqlite3 only, a team runs on SQLite",
};

/** The bare modules a smoke program imports, read by TypeScript's scanner. */
function importsOf(file: string): Set<string> {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return new Set(
    importedFiles.map(({ fileName }) =>
      fileName
        .split("/")
        .slice(0, fileName.startsWith("@") ? 2 : 1)
        .join("/"),
    ),
  );
}

/** One install per end of the peer ranges: every peer at its lowest version, then every peer at its highest. */
async function peerVariants(
  info: PackageInfo,
  smoke: string,
): Promise<Array<{ label: string; specs: string[] }>> {
  const imported = importsOf(smoke);
  const peers = Object.entries(info.peerDependencies).filter(
    ([name]) => !isInternal(name) && (!info.peerDependenciesMeta[name]?.optional || imported.has(name)),
  );
  if (!peers.length) return [{ label: "no peer dependencies", specs: [] }];
  const ends = await Promise.all(
    peers.map(async ([name, range]) => {
      const cap = INSTALLABLE_CAPS[name];
      return [name, await rangeEnds(name, cap ? `${range} <${cap.below}` : range)] as const;
    }),
  );
  return [0, 1].map(end => ({
    label: ends.map(([name, versions]) => `${name}@${versions[end]}`).join(" "),
    specs: ends.map(([name, versions]) => `${name}@${versions[end]}`),
  }));
}

/**
 * Installs start as soon as the file loads, two at a time (npm mostly waits on the disk and the network, and a
 * native peer such as better-sqlite3 compiles on one core), so each describe block only waits for its own.
 */
const installing: Array<() => void> = [];
let running = 0;
function queued<T>(start: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const run = () => {
      running += 1;
      start()
        .then(resolve, reject)
        .finally(() => {
          running -= 1;
          installing.shift()?.();
        });
    };
    if (running < 2) run();
    else installing.push(run);
  });
}

/** Runs a smoke program inside the project, and checks require() gives what import gives, for each package. */
function installAndSmoke(title: string, names: string[], specs: string[], smoke: string) {
  const tarballs = tarballsFor(["@agent-lattice/core", ...names]);
  const project = queued(() => createNpmProject([...tarballs, ...specs]));
  project.catch(() => {}); // reported by beforeAll; never an unhandled rejection meanwhile
  describe(title, () => {
    let ready: NpmProject;
    beforeAll(async () => {
      ready = await project;
    });
    afterAll(() => ready?.remove());

    it("installs real copies of exactly these packages, at the versions asked for, without the umbrella", () => {
      const internal = tarballs.length;
      const installed = readdirSync(join(ready.dir, "node_modules/@agent-lattice")).map(
        dir => `@agent-lattice/${dir}`,
      );
      expect(installed).toHaveLength(internal);
      for (const name of installed) expect(ready.installedPath(name).startsWith(ready.dir), name).toBe(true);
      expect(existsSync(join(ready.dir, "node_modules/agent-lattice"))).toBe(false);
      for (const spec of specs) {
        const at = spec.lastIndexOf("@");
        const [name, version] = [spec.slice(0, at), spec.slice(at + 1)];
        if (!/^\d+\.\d+\.\d+$/.test(version)) continue; // a range (an extra), not a pinned end
        const pkg = JSON.parse(readFileSync(join(ready.dir, "node_modules", name, "package.json"), "utf8"));
        expect(pkg.version, name).toBe(version);
      }
    });

    it(`runs ${relative(ROOT, smoke)}`, async () => {
      copyFileSync(smoke, join(ready.dir, "smoke.mjs"));
      const run = await ready.node(["smoke.mjs"]);
      expect(run.code, explain(run)).toBe(0);
      expect(run.stdout).toMatch(/^smoke ok: /m);
    });

    it("require() and import give the same module", async () => {
      for (const name of ["@agent-lattice/core", ...names]) {
        const source = `import { createRequire } from "node:module";
          const esm = await import(${JSON.stringify(name)});
          const cjs = createRequire(import.meta.url)(${JSON.stringify(name)});
          const keys = Object.keys(esm);
          if (!keys.length || keys.some(key => esm[key] !== cjs[key])) process.exit(1);`;
        const run = await ready.node(["--input-type=module", "-e", source]);
        expect(run.code, `${name}\n${explain(run)}`).toBe(0);
      }
    });
  });
}

for (const info of adapters) {
  const smoke = join(ROOT, "packages", info.dir, "test/pack-smoke.mjs");
  describe(`${info.name} beside @agent-lattice/core alone`, () => {
    it("ships a smoke program (test/pack-smoke.mjs)", () => {
      expect(
        existsSync(smoke),
        `add packages/${info.dir}/test/pack-smoke.mjs: a program using it through core`,
      ).toBe(true);
    });
  });
  if (!existsSync(smoke)) continue;
  const extras = SMOKE_EXTRAS[info.dir] ?? {};
  for (const variant of await peerVariants(info, smoke)) {
    const title = TITLES[info.dir] ? ` — ${TITLES[info.dir]}` : "";
    installAndSmoke(
      `${info.name} beside @agent-lattice/core alone${title} (${variant.label})`,
      [info.name, ...(extras.packages ?? [])],
      [...variant.specs, ...(extras.specs ?? [])],
      smoke,
    );
  }
}
