// Benchmark: install footprint and cold import time as a user gets them. Packs the workspace packages, installs
// each subject with npm into an empty project of its own (dependencies from the registry, zod as the user installs
// it), measures node_modules on disk, then times `await import(name)` in fresh processes, subjects interleaved.
// Beside ours, in the same run and installed the same way: the Claude Agent SDK, @openai/agents, ai (Vercel AI
// SDK), @mastra/core and @anthropic-ai/sdk.
// Targets: @agent-lattice/core <= 23 MB with its dependencies, agent-lattice <= 40 MB with every adapter's
// dependency, and the umbrella's cold import under half of ai's. Sizes are judged as install size is measured in
// the npm ecosystem: the sum of the installed files' sizes (packagephobia's "install size" sums lstat sizes of the
// tree `npm install <name>` leaves; npm's "unpacked size" likewise). `du` blocks are printed beside them: a filesystem
// detail (every file rounded up to 4 KiB) that depends on the disk, not on what we ship.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./mock-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const RUNS = Number(process.env.RUNS ?? 9);
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** Packs every published package under packages/; returns name → tarball path. */
function packAll(outDir) {
  const tarballs = {};
  for (const dir of readdirSync(join(root, "packages"))) {
    const pkg = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
    if (pkg.private) continue;
    const before = new Set(readdirSync(outDir));
    run("pnpm", ["pack", "--pack-destination", outDir], join(root, "packages", dir));
    tarballs[pkg.name] = join(
      outDir,
      readdirSync(outDir).find(file => !before.has(file)),
    );
  }
  return tarballs;
}

function install(specs) {
  const dir = mkdtempSync(join(tmpdir(), "al-footprint-"));
  writeFileSync(join(dir, "package.json"), '{ "name": "bench-user", "private": true }\n');
  run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline", ...specs], dir);
  // Two measures of one tree: what the files hold (the sum of their sizes: npm's "unpacked size", what the
  // registry and packagephobia report) and what they take on this disk (du: every file rounded up to whole 4 KiB
  // blocks, so a package of many small .d.ts files weighs much more than its bytes).
  const kbOf = flags => Number(run("du", [...flags, "node_modules"], dir).split("\t")[0]);
  return {
    dir,
    unpackedMB: +(kbOf(["-sk", "--apparent-size"]) / 1024).toFixed(1),
    onDiskMB: +(kbOf(["-sk"]) / 1024).toFixed(1),
  };
}

/** Milliseconds for `await import(name)` in a fresh process (module loading only, not process start-up). */
function coldImportMs(dir, name) {
  const source = `const t = performance.now(); await import(${JSON.stringify(name)}); console.log(performance.now() - t);`;
  return Number(run(process.execPath, ["--input-type=module", "-e", source], dir).trim());
}

const verdict = (megabytes, limit) => `${megabytes} MB ${megabytes <= limit ? "<=" : ">"} ${limit} MB`;

export function runFootprint() {
  const out = mkdtempSync(join(tmpdir(), "al-packs-"));
  const installed = [];
  try {
    const tarballs = packAll(out);
    const ours = names =>
      Object.entries(tarballs)
        .filter(([name]) => names(name))
        .map(([, path]) => path);
    const subjects = [
      // Core alone: no other package of ours.
      { name: "@agent-lattice/core", specs: [tarballs["@agent-lattice/core"], "zod@4"] },
      // The umbrella with every package of ours it depends on: every adapter's own dependencies (MCP SDK, langsmith,
      // @langfuse/tracing and @opentelemetry/api) come with it.
      { name: "agent-lattice", specs: [...ours(name => name !== "@agent-lattice/trace-viewer"), "zod@4"] },
      // The same plus the optional peers a user adds to use every adapter: better-sqlite3 (SQLite mailbox), pg
      // (PostgreSQL mailbox), @langfuse/otel and the OpenTelemetry SDK (Langfuse). Install scripts are skipped for
      // every subject, so better-sqlite3's native addon is not compiled here (its sources are counted).
      {
        label: "agent-lattice + optional peers",
        name: "agent-lattice",
        specs: [
          ...ours(name => name !== "@agent-lattice/trace-viewer"),
          "zod@4",
          "better-sqlite3@^12",
          "pg@^8",
          "@langfuse/otel@^5",
          "@opentelemetry/sdk-trace-node@^2",
        ],
      },
      {
        name: "@anthropic-ai/claude-agent-sdk",
        specs: ["@anthropic-ai/claude-agent-sdk", "@anthropic-ai/sdk", "@modelcontextprotocol/sdk", "zod@4"],
      },
      { name: "@openai/agents", specs: ["@openai/agents", "zod@4"] },
      { name: "ai", specs: ["ai", "zod@4"] },
      { name: "@mastra/core", specs: ["@mastra/core", "zod@4"] },
      { name: "@anthropic-ai/sdk", specs: ["@anthropic-ai/sdk"] },
    ];
    for (const subject of subjects) installed.push({ ...subject, ...install(subject.specs) });

    const labelOf = subject => subject.label ?? subject.name;
    const times = Object.fromEntries(installed.map(subject => [labelOf(subject), []]));
    for (let round = 0; round < RUNS + 1; round++) {
      for (const subject of installed) {
        const ms = coldImportMs(subject.dir, subject.name);
        if (round > 0) times[labelOf(subject)].push(ms); // the first round warms the OS file cache
      }
    }
    const versionOf = subject =>
      JSON.parse(readFileSync(join(subject.dir, "node_modules", subject.name, "package.json"), "utf8"))
        .version;
    const rows = installed.map(subject => ({
      package: `${subject.name}@${versionOf(subject)}${subject.label ? ` ${subject.label.slice(subject.name.length).trim()}` : ""}`,
      unpackedMB: subject.unpackedMB,
      onDiskMB: subject.onDiskMB,
      coldImportMedianMs: +median(times[labelOf(subject)]).toFixed(1),
      coldImportSpreadMs: [
        +Math.min(...times[labelOf(subject)]).toFixed(1),
        +Math.max(...times[labelOf(subject)]).toFixed(1),
      ],
    }));
    const byName = name => rows.find(row => row.package.startsWith(`${name}@`));
    const umbrellaOverAi = +(
      byName("agent-lattice").coldImportMedianMs / byName("ai").coldImportMedianMs
    ).toFixed(2);
    const loadAverage = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const report = {
      benchmark: "install footprint (npm install, zod where a peer) and cold import (fresh process, medians)",
      runs: RUNS,
      loadAverageAfter: loadAverage,
      rows,
      umbrellaImportOverAi: umbrellaOverAi,
      // How many times longer each other package's cold import takes than the umbrella's (medians).
      importTimesUmbrella: Object.fromEntries(
        rows
          .filter(
            row => !row.package.startsWith("agent-lattice@") && !row.package.startsWith("@agent-lattice/"),
          )
          .map(row => [
            row.package,
            +(row.coldImportMedianMs / byName("agent-lattice").coldImportMedianMs).toFixed(1),
          ]),
      ),
      verdict: {
        coreInstallSize: verdict(byName("@agent-lattice/core").unpackedMB, 23),
        umbrellaInstallSize: verdict(byName("agent-lattice").unpackedMB, 40),
        umbrellaColdImport: `${umbrellaOverAi} x ai's ${umbrellaOverAi < 0.5 ? "<" : ">="} 0.5`,
        // Not targets: the same trees in whole 4 KiB blocks on this disk.
        onDiskForInformation: {
          core: `${byName("@agent-lattice/core").onDiskMB} MB`,
          umbrella: `${byName("agent-lattice").onDiskMB} MB`,
        },
      },
      target:
        "install size (sum of file sizes, as npm and packagephobia report it): core <= 23 MB, umbrella <= 40 MB (`npm install agent-lattice zod`: every adapter's dependency comes with it); umbrella cold import < 0.5 x ai's",
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    for (const subject of installed) rmSync(subject.dir, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) runFootprint();
