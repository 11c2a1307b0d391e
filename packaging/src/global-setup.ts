import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { publicPackages } from "../../scripts/package-policy.mjs";
import { explain, ROOT, runCommand } from "./workspace.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Package name → path of its `pnpm pack` tarball, made once for the whole packaging run. */
    tarballs: Record<string, string>;
  }
}

/**
 * Builds every package (turbo: nothing to do when `pnpm test` just built them) and packs each published
 * package once, with pnpm, exactly as `pnpm publish` would (workspace: ranges rewritten to versions).
 */
export default async function setup(project: TestProject) {
  const build = await runCommand("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"], {
    cwd: ROOT,
  });
  if (build.code !== 0) throw new Error(`pnpm build failed before packing:\n${explain(build)}`);
  const out = mkdtempSync(join(tmpdir(), "al-tarballs-"));
  const tarballs: Record<string, string> = {};
  for (const { dir, pkg } of publicPackages() as Array<{ dir: string; pkg: { name: string } }>) {
    const before = new Set(readdirSync(out));
    const packed = await runCommand("pnpm", ["pack", "--pack-destination", out], {
      cwd: join(ROOT, "packages", dir),
    });
    const created = readdirSync(out).filter(file => !before.has(file));
    if (packed.code !== 0 || created.length !== 1)
      throw new Error(`pnpm pack ${dir} failed:\n${explain(packed)}`);
    tarballs[pkg.name] = join(out, created[0] as string);
  }
  project.provide("tarballs", tarballs);
  return () => rmSync(out, { recursive: true, force: true });
}
