// Package boundaries (core seams issue): the repository's Biome configuration rejects a wrong-way import — core
// importing a sibling, an adapter importing another adapter or another package's src/ — and accepts the allowed
// ones. The probe files live in a scratch copy of the layout (the real biome.json and package manifests), so the
// source tree is never touched.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const biome = join(
  dirname(createRequire(join(repo, "package.json")).resolve("@biomejs/biome/package.json")),
  "bin/biome",
);
let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "al-boundaries-"));
  cpSync(join(repo, "biome.json"), join(scratch, "biome.json"));
  for (const pkg of ["core", "builtin-tools", "agent-lattice"]) {
    mkdirSync(join(scratch, "packages", pkg, "src"), { recursive: true });
    cpSync(join(repo, "packages", pkg, "package.json"), join(scratch, "packages", pkg, "package.json"));
  }
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Lints one probe file placed at `path` in the scratch layout; returns Biome's diagnostics text, "" when clean. */
function lint(path: string, source: string): string {
  const file = join(scratch, path);
  writeFileSync(file, source);
  try {
    execFileSync(process.execPath, [biome, "lint", "--vcs-enabled=false", "--max-diagnostics=20", file], {
      cwd: scratch,
      stdio: "pipe",
    });
    return "";
  } catch (error) {
    const { stdout, stderr } = error as { stdout: Buffer; stderr: Buffer };
    return `${stdout}${stderr}`;
  } finally {
    rmSync(file, { force: true });
  }
}

describe("package boundaries (Biome noRestrictedImports / noUndeclaredDependencies)", () => {
  it("core importing an adapter fails the lint", () => {
    const output = lint(
      "packages/core/src/wrong-way.ts",
      'import { createBuiltinTools } from "@agent-lattice/builtin-tools";\nexport const probe = createBuiltinTools;\n',
    );
    expect(output).toMatch(/noRestrictedImports/);
    expect(output).toMatch(/Core imports no sibling package/);
  });

  it("an adapter importing another adapter fails the lint", () => {
    const output = lint(
      "packages/builtin-tools/src/wrong-way.ts",
      'import { startMockAnthropicServer } from "@agent-lattice/testing";\nexport const probe = startMockAnthropicServer;\n',
    );
    expect(output).toMatch(/noRestrictedImports/);
  });

  it("an adapter reaching into core's src/ fails the lint", () => {
    const output = lint(
      "packages/builtin-tools/src/wrong-way.ts",
      'import { runQuery } from "../../core/src/agent-loop.js";\nexport const probe = runQuery;\n',
    );
    expect(output).toMatch(/noRestrictedImports/);
  });

  it("an import of a package the manifest does not declare fails the lint", () => {
    const output = lint("packages/core/src/wrong-way.ts", 'import pg from "pg";\nexport const probe = pg;\n');
    expect(output).toMatch(/noUndeclaredDependencies/);
  });

  it("an adapter importing core's public and internal entries passes", () => {
    const output = lint(
      "packages/builtin-tools/src/right-way.ts",
      'import { tool } from "@agent-lattice/core";\nimport { acceptGrants } from "@agent-lattice/core/internal";\nexport const probe = [tool, acceptGrants];\n',
    );
    expect(output).toBe("");
  });

  it("the umbrella may import every package", () => {
    const output = lint(
      "packages/agent-lattice/src/right-way.ts",
      'import { createBuiltinTools } from "@agent-lattice/builtin-tools";\nimport { tool } from "@agent-lattice/core";\nexport const probe = [tool, createBuiltinTools];\n',
    );
    expect(output).toBe("");
  });
});
