// Releases: the published packages version together (changesets `fixed` group) and `pnpm changeset version`
// writes sane versions and changelogs — run on a throwaway copy, never on the repository — and the publish dry
// run (`pnpm release:dry-run`: every published package packed and "published" with --dry-run) passes.
import { existsSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanCopy } from "../src/clean-copy.js";
import { publishedPackages } from "../src/tarballs.js";
import { explain, ROOT, readJson, runCommand } from "../src/workspace.js";

const published = [...publishedPackages().values()];

describe("pnpm changeset version (on a throwaway copy)", () => {
  let copy: string;
  let pending: string[];
  beforeAll(async () => {
    copy = await cleanCopy();
    // The copy borrows the workspace's installed tools; nothing in it is installed or built.
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
    pending = (
      await runCommand("git", ["ls-files", "--cached", "--others", "--exclude-standard", ".changeset"], {
        cwd: ROOT,
      })
    ).stdout
      .split("\n")
      .filter(file => file.endsWith(".md") && !file.endsWith("README.md"));
    const version = await runCommand("pnpm", ["changeset", "version"], { cwd: copy, env: { CI: "true" } });
    expect(version.code, explain(version)).toBe(0);
  });
  afterAll(() => {
    if (copy) rmSync(dirname(copy), { recursive: true, force: true });
  });

  it("there are changesets to release (each user-visible change adds one)", () => {
    expect(pending.length).toBeGreaterThan(0);
  });

  it("gives every published package one and the same new version, and consumes the changesets", () => {
    const versions = published.map(p => readJson(join(copy, "packages", p.dir, "package.json")).version);
    expect(new Set(versions).size).toBe(1);
    expect(versions[0]).not.toBe(published[0]?.version);
    for (const file of pending) expect(existsSync(join(copy, file)), file).toBe(false);
  });

  it("keeps internal dependencies as workspace:^ and internal peers as workspace:^<major> (pnpm publishes ^<version> and ^<major>)", () => {
    for (const p of published) {
      const pkg = readJson(join(copy, "packages", p.dir, "package.json"));
      const major = String(pkg.version).split(".")[0];
      for (const [field, expected] of [
        ["dependencies", "workspace:^"],
        ["peerDependencies", `workspace:^${major}`],
      ] as const) {
        for (const [name, spec] of Object.entries(pkg[field] ?? {})) {
          if (name.startsWith("@agent-lattice/") || name === "agent-lattice")
            expect(spec, `${p.dir} ${field} ${name}`).toBe(expected);
        }
      }
    }
  });

  it("bumps no further than the changesets ask: no major unless one says major (a peer dependent is no reason)", () => {
    const asked = pending.flatMap(file =>
      [...readFileSync(join(ROOT, file), "utf8").matchAll(/^"[^"]+":\s*(major|minor|patch)\s*$/gm)].map(
        match => match[1] as string,
      ),
    );
    const [major, minor, patch] = String(published[0]?.version).split(".").map(Number) as [
      number,
      number,
      number,
    ];
    const expected = asked.includes("major")
      ? `${major + 1}.0.0`
      : asked.includes("minor")
        ? `${major}.${minor + 1}.0`
        : `${major}.${minor}.${patch + 1}`;
    for (const p of published)
      expect(readJson(join(copy, "packages", p.dir, "package.json")).version, p.dir).toBe(expected);
  });

  it("writes each package a CHANGELOG.md headed by the new version with that package's entries", () => {
    for (const p of published) {
      const pkg = readJson(join(copy, "packages", p.dir, "package.json"));
      const changelog = readFileSync(join(copy, "packages", p.dir, "CHANGELOG.md"), "utf8");
      expect(
        changelog.startsWith(`# ${p.name}\n\n## ${pkg.version}\n`),
        `${p.dir}:\n${changelog.slice(0, 300)}`,
      ).toBe(true);
      expect(changelog).toMatch(/### (Major|Minor|Patch) Changes\n\n- /);
      expect(changelog).not.toMatch(/undefined|\[object Object\]/);
    }
  });

  it("leaves private workspace packages (examples, bench, packaging) alone", () => {
    for (const dir of ["examples", "bench", "packaging"]) {
      expect(readJson(join(copy, dir, "package.json")).version, dir).toBe(
        readJson(join(ROOT, dir, "package.json")).version,
      );
      expect(existsSync(join(copy, dir, "CHANGELOG.md")), dir).toBe(false);
    }
  });
});

describe("pnpm release:dry-run", () => {
  it("packs and dry-run publishes every published package", async () => {
    const run = await runCommand("pnpm", ["run", "release:dry-run"], { cwd: ROOT, env: { CI: "true" } });
    expect(run.code, explain(run)).toBe(0);
    const output = run.stdout + run.stderr;
    for (const p of published) expect(output).toContain(`${p.name}@${p.version}`);
  });
});
