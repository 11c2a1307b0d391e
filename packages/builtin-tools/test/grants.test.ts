import { mkdirSync, symlinkSync } from "node:fs";
import { isWithin, resolvePhysical } from "@agent-lattice/core/internal";
import { describe, expect, it } from "vitest";
import { checkWritePath, createBuiltinTools } from "../src/index.js";
import { tempDir } from "./helpers.js";

describe("resolvePhysical", () => {
  it("normalises //, /./ and trailing slashes", () => {
    const dir = tempDir("paths-");
    expect(resolvePhysical(`${dir}//a/./b/`)).toBe(`${dir}/a/b`);
  });

  it("follows a symlinked directory before applying .. (as the kernel does)", () => {
    const dir = tempDir("paths-");
    mkdirSync(`${dir}/real/inner`, { recursive: true });
    symlinkSync(`${dir}/real/inner`, `${dir}/link`);
    expect(resolvePhysical(`${dir}/link/../x`)).toBe(`${dir}/real/x`);
  });

  it("resolves relative symlink targets against the link's directory, and dangling links to their target", () => {
    const dir = tempDir("paths-");
    mkdirSync(`${dir}/a`);
    symlinkSync("../b/target", `${dir}/a/rel`);
    expect(resolvePhysical(`${dir}/a/rel`)).toBe(`${dir}/b/target`);
  });

  it("appends not-yet-existing components to the nearest existing real ancestor", () => {
    const dir = tempDir("paths-");
    const other = tempDir("paths-other-");
    symlinkSync(other, `${dir}/out`);
    expect(resolvePhysical("out/new/deeper/f.txt", dir)).toBe(`${other}/new/deeper/f.txt`);
  });

  it("throws on a symlink cycle", () => {
    const dir = tempDir("paths-");
    symlinkSync(`${dir}/b`, `${dir}/a`);
    symlinkSync(`${dir}/a`, `${dir}/b`);
    expect(() => resolvePhysical(`${dir}/a/x`)).toThrow(/too many levels of symbolic links/);
  });
});

describe("isWithin", () => {
  it("is path-segment aware", () => {
    expect(isWithin("/work/a", "/work/a")).toBe(true);
    expect(isWithin("/work/a/x", "/work/a")).toBe(true);
    expect(isWithin("/work/ab", "/work/a")).toBe(false);
    expect(isWithin("/anything", "/")).toBe(true);
  });
});

describe("checkWritePath", () => {
  it("allows paths under a root, reporting the covering root", () => {
    const root = tempDir("grants-");
    expect(checkWritePath("x/y.txt", { roots: [root], cwd: root })).toEqual({
      allowed: true,
      requestedPath: "x/y.txt",
      resolvedPath: `${root}/x/y.txt`,
      coveredBy: root,
    });
  });

  it("allows paths under a write grant, and ignores grants without write access or with relative roots", () => {
    const root = tempDir("grants-");
    const shared = tempDir("shared-");
    const target = `${shared}/f.txt`;
    expect(
      checkWritePath(target, { roots: [root], grants: [{ root: shared, access: ["write"] }] }).allowed,
    ).toBe(true);
    expect(checkWritePath(target, { roots: [root], grants: [{ root: shared, access: [] }] }).allowed).toBe(
      false,
    );
    expect(
      checkWritePath(target, { roots: [root], grants: [{ root: "shared", access: ["write"] }], cwd: shared })
        .allowed,
    ).toBe(false);
  });

  it("realpaths the roots themselves (a root given through a symlink covers its target)", () => {
    const real = tempDir("grants-real-");
    const links = tempDir("grants-links-");
    symlinkSync(real, `${links}/root`);
    const check = checkWritePath(`${real}/f`, { roots: [`${links}/root`] });
    expect(check).toMatchObject({ allowed: true, coveredBy: real });
  });

  it("denies with the physical path, the allowed roots and a reason", () => {
    const root = tempDir("grants-");
    const other = tempDir("grants-other-");
    expect(checkWritePath(`${other}/f`, { roots: [root] })).toEqual({
      allowed: false,
      code: "permission_denied",
      requestedPath: `${other}/f`,
      resolvedPath: `${other}/f`,
      allowedRoots: [root],
      reason: `${other}/f is outside every writable root`,
    });
  });
});

describe("createBuiltinTools options", () => {
  it("returns the seven tools in order, or the chosen subset", () => {
    expect(createBuiltinTools().map(definition => definition.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "LS",
      "Glob",
      "Grep",
      "Bash",
    ]);
    expect(createBuiltinTools({ tools: ["Read", "Grep"] }).map(definition => definition.name)).toEqual([
      "Read",
      "Grep",
    ]);
    expect(createBuiltinTools({ bash: false }).map(definition => definition.name)).not.toContain("Bash");
  });

  it("throws on unknown options and wrong types, with core's message format", () => {
    expect(() => createBuiltinTools({ allowedDirs: [] } as never)).toThrow(
      'createBuiltinTools(): unknown option "allowedDirs". Check for a typo, or upgrade the SDK if this option was added in a newer version.',
    );
    expect(() => createBuiltinTools({ bash: { timeout: 1 } } as never)).toThrow(
      'createBuiltinTools().bash: unknown option "timeout"',
    );
    expect(() => createBuiltinTools({ allowedDirectories: "/x" } as never)).toThrow(
      /allowedDirectories must be an array/,
    );
    expect(() => createBuiltinTools({ tools: ["Rm"] } as never)).toThrow(/tools must list tool names/);
  });
});
