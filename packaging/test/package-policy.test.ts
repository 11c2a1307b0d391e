// Every published package's package.json, LICENSE and README follow one policy (scripts/package-policy.mjs):
// Node ^20.19 || >=22.12, import + require entries with types for each, repository/homepage/bugs, LICENSE in the
// tarball, runtime dependencies as ranges, internal dependencies as workspace:^, zod ^3.25.76 || ^4, README
// links that work on the registry's page. New packages under packages/ are checked without touching this file.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NODE_RANGE, packageDirs, policyProblems } from "../../scripts/package-policy.mjs";
import { publishedPackages } from "../src/tarballs.js";
import { ROOT, readJson } from "../src/workspace.js";

describe("package policy", () => {
  it.each(packageDirs() as string[])("packages/%s complies", dir => {
    expect(policyProblems(dir), "run `node scripts/package-policy.mjs --fix` (README links by hand)").toEqual(
      [],
    );
  });

  it("the repository states the same Node range and carries the MIT LICENSE", () => {
    expect(readJson(join(ROOT, "package.json")).engines.node).toBe(NODE_RANGE);
    const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 AgentLattice contributors\n/);
  });

  it("changesets versions every published package together (one fixed group), examples and bench aside", () => {
    const config = readJson(join(ROOT, ".changeset/config.json"));
    expect(config.fixed).toHaveLength(1);
    const patterns: string[] = config.fixed[0];
    const matches = (name: string) =>
      patterns.some(p =>
        new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`).test(name),
      );
    for (const name of publishedPackages().keys()) expect(matches(name), name).toBe(true);
    expect(config.linked).toEqual([]);
  });
});

describe("the root README and docs", () => {
  const documents = ["README.md", ...readdirMarkdown("docs")];

  it.each(documents)("%s links only to files inside the repository that exist", file => {
    const text = readFileSync(join(ROOT, file), "utf8");
    expect(text).not.toMatch(/\.\.\/shared|\/work\//);
    for (const match of text.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
      const target = match[1] as string;
      if (/^(https?:|mailto:)/.test(target)) continue;
      const resolved = join(ROOT, file, "..", target);
      expect(resolved.startsWith(ROOT), `${file} → ${target} leaves the repository`).toBe(true);
      expect(existsSync(resolved), `${file} → ${target} does not exist`).toBe(true);
    }
  });

  it("the README's package table lists every published package, and claims no future work", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    for (const name of publishedPackages().keys()) expect(readme).toContain(`| [\`${name}\`](packages/`);
    expect(readme).not.toMatch(/land as (their|the) issues/i);
    expect(readme).toContain(NODE_RANGE);
  });
});

function readdirMarkdown(dir: string): string[] {
  return readdirSync(join(ROOT, dir))
    .filter(file => file.endsWith(".md"))
    .map(file => `${dir}/${file}`);
}
