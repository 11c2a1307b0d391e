// The one write boundary that builtin-tools, delegation and the team runtime share (core/internal): physical paths,
// grant coverage, and the descriptor-checked open (B2, B3).

import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  acceptGrants,
  checkWritePath,
  closeOpened,
  isWithin,
  openForWrite,
  PathResolutionError,
  readOpened,
  replaceOpened,
  resolvePhysical,
  resolvePhysicalEntry,
  UnsafeFileError,
  writeFileWithinScope,
} from "../src/internal.js";

const temps: string[] = [];
function tempDir(prefix = "fsb-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** base/ws (a root) with link-out -> base/outside, and base/outside/existing.txt. */
function layout() {
  const base = tempDir();
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  mkdirSync(join(ws, "sub"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "existing.txt"), "original");
  symlinkSync(outside, join(ws, "link-out"));
  writeFileSync(join(ws, "file.txt"), "a file");
  return { base, ws, outside };
}

describe("resolvePhysical", () => {
  it("normalises //, /./ and trailing slashes, and follows a symlink before applying ..", () => {
    const { ws, outside, base } = layout();
    expect(resolvePhysical(`${ws}//sub/./`)).toBe(`${ws}/sub`);
    expect(resolvePhysical(`${ws}/link-out/../x`)).toBe(`${base}/x`);
    expect(resolvePhysical("link-out/new/deeper.txt", ws)).toBe(`${outside}/new/deeper.txt`);
  });

  it("refuses .. after a component that does not exist (no lexical collapse: nope/../link-out/x)", () => {
    const { ws } = layout();
    expect(() => resolvePhysical("nope/../link-out/x", ws)).toThrow(PathResolutionError);
    expect(() => resolvePhysical("nope/../link-out/x", ws)).toThrow(
      /"\.\." follows nope, which does not exist yet/,
    );
    expect(() => resolvePhysical("a/b/../../link-out/x", ws)).toThrow(/follows a\/b/);
  });

  it("refuses a path below an existing non-directory (ENOTDIR) instead of collapsing its ..", () => {
    const { ws } = layout();
    expect(() => resolvePhysical("file.txt/../link-out/x", ws)).toThrow(/file\.txt is not a directory/);
    expect(() => resolvePhysical("file.txt/", ws)).toThrow(/not a directory/);
  });

  it("refuses NUL bytes, over-long components and symlink cycles", () => {
    const { ws } = layout();
    expect(() => resolvePhysical("a\0/../../x", ws)).toThrow(/NUL byte/);
    expect(() => resolvePhysical(`${"n".repeat(300)}/x`, ws)).toThrow(/longer than 255 bytes/);
    symlinkSync(join(ws, "loop2"), join(ws, "loop1"));
    symlinkSync(join(ws, "loop1"), join(ws, "loop2"));
    expect(() => resolvePhysical("loop1/x", ws)).toThrow(/too many levels of symbolic links/);
  });

  it("follows a dangling symlink to the file it would create; names with newlines are just names", () => {
    const { ws, outside } = layout();
    symlinkSync(join(outside, "made-by-link.txt"), join(ws, "dangling"));
    expect(resolvePhysical("dangling", ws)).toBe(`${outside}/made-by-link.txt`);
    expect(resolvePhysical("line\nbreak/x", ws)).toBe(`${ws}/line\nbreak/x`);
  });

  it("resolvePhysicalEntry does not follow the last component", () => {
    const { ws } = layout();
    expect(resolvePhysicalEntry("link-out", ws)).toBe(`${ws}/link-out`);
  });

  it("isWithin is segment aware", () => {
    expect(isWithin("/work/a/x", "/work/a")).toBe(true);
    expect(isWithin("/work/ab", "/work/a")).toBe(false);
  });
});

describe("checkWritePath", () => {
  it("denies every unresolvable form with the reason, never guessing", () => {
    const { ws } = layout();
    const check = checkWritePath("nope/../link-out/x", { roots: [ws], cwd: ws });
    expect(check).toMatchObject({ allowed: false, code: "permission_denied", resolvedPath: null });
    expect(check.allowed === false && check.reason).toMatch(/does not exist yet/);
  });
});

describe("openForWrite / writeFileWithinScope: decided on the file actually opened", () => {
  it("writes inside a root and creates missing directories one at a time", () => {
    const { ws } = layout();
    const result = writeFileWithinScope("a/b/c.txt", "deep", { roots: [ws], cwd: ws });
    expect(result).toMatchObject({ ok: true, path: `${ws}/a/b/c.txt`, existed: false, bytes: 4 });
    expect(readFileSync(`${ws}/a/b/c.txt`, "utf8")).toBe("deep");
  });

  it("denies through a symlinked directory and leaves the outside untouched", () => {
    const { ws, outside } = layout();
    const result = writeFileWithinScope("link-out/existing.txt", "pwned", { roots: [ws], cwd: ws });
    expect(result.ok).toBe(false);
    expect(readFileSync(join(outside, "existing.txt"), "utf8")).toBe("original");
  });

  it("refuses a FIFO without blocking (O_NONBLOCK + fstat), with or without a reader", () => {
    const { ws } = layout();
    const fifo = join(ws, "pipe");
    execFileSync("mkfifo", [fifo]);
    const started = Date.now();
    expect(() => openForWrite("pipe", { roots: [ws], cwd: ws })).toThrow(UnsafeFileError);
    expect(() => openForWrite("pipe", { roots: [ws], cwd: ws })).toThrow(
      /not a regular file \(it is a FIFO\)/,
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("refuses a hard-linked file: the write would also change its other names", () => {
    const { ws, outside } = layout();
    linkSync(join(outside, "existing.txt"), join(ws, "hard"));
    expect(() => writeFileWithinScope("hard", "pwned", { roots: [ws], cwd: ws })).toThrow(/2 hard links/);
    expect(readFileSync(join(outside, "existing.txt"), "utf8")).toBe("original");
  });

  it("never creates directories above the covering root", () => {
    const base = tempDir();
    const root = join(base, "missing-parent", "root");
    expect(() => writeFileWithinScope(join(root, "f.txt"), "x", { roots: [root] })).toThrow(
      /lies above the writable root/,
    );
    expect(existsSync(join(base, "missing-parent"))).toBe(false);
  });

  it("reads and replaces through the same descriptor (an edit)", () => {
    const { ws } = layout();
    writeFileSync(join(ws, "e.txt"), "old text");
    const opened = openForWrite("e.txt", { roots: [ws], cwd: ws }, { read: true, create: false });
    if (!opened.ok) throw new Error("expected to open");
    try {
      expect(readOpened(opened.file, 1000).toString()).toBe("old text");
      replaceOpened(opened.file, "new");
    } finally {
      closeOpened(opened.file);
    }
    expect(readFileSync(join(ws, "e.txt"), "utf8")).toBe("new");
    expect(() => openForWrite("absent.txt", { roots: [ws], cwd: ws }, { create: false })).toThrow(
      /does not exist/,
    );
  });

  it("a racing process swapping a directory for a symlink never gets a write outside", async () => {
    const { ws, outside } = layout();
    // A second process flips ws/d between a real directory and a symlink to the outside, as fast as it can.
    const racer = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs");
         const d = ${JSON.stringify(join(ws, "d"))};
         const end = Date.now() + 1500;
         while (Date.now() < end) {
           try { fs.rmSync(d, { recursive: true, force: true }); fs.symlinkSync(${JSON.stringify(outside)}, d); } catch {}
           try { fs.rmSync(d, { force: true }); fs.mkdirSync(d); } catch {}
         }`,
      ],
      { stdio: "ignore" },
    );
    const exited = new Promise(resolve => racer.once("exit", resolve));
    const outcomes = { written: 0, denied: 0, failed: 0 };
    const deadline = Date.now() + 1200;
    while (Date.now() < deadline) {
      try {
        const result = writeFileWithinScope("d/f.txt", "x", { roots: [ws], cwd: ws });
        if (result.ok) outcomes.written++;
        else outcomes.denied++;
      } catch {
        outcomes.failed++;
      }
      await new Promise(resolve => setImmediate(resolve));
    }
    await exited;
    expect(outcomes.written + outcomes.denied + outcomes.failed).toBeGreaterThan(50);
    expect(readdirSync(outside).sort()).toEqual(["existing.txt"]);
    expect(readFileSync(join(outside, "existing.txt"), "utf8")).toBe("original");
  });
});

describe("acceptGrants uses the same resolution", () => {
  it("rejects a requested root with .. after a missing component, or through a link out of the held root", () => {
    const { base, ws, outside } = layout();
    const caller = { workspaceGrants: [{ root: ws, access: ["write"] as Array<"write"> }] };
    const { accepted, rejected } = acceptGrants(
      [
        { root: join(ws, "nope/../link-out"), access: ["write"] },
        { root: join(ws, "link-out"), access: ["write"] },
        { root: join(ws, "sub/new"), access: ["write"] },
        { root: "relative", access: ["write"] },
      ],
      caller,
    );
    expect(accepted.map(grant => grant.root)).toEqual([join(ws, "sub/new")]);
    expect(rejected).toHaveLength(3);
    expect(outside.startsWith(base)).toBe(true);
  });
});
