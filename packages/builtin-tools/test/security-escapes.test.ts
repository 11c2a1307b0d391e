import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WorkspaceGrant } from "@agent-lattice/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EscapeCase, escapeCases, type Layout, makeLayout, outsideOfRoot } from "./escape-cases.js";
import { call, denial, hostTempDir, snapshot, text, toolsFor } from "./helpers.js";
import { requireSandbox } from "./sandbox-required.js";

/**
 * The escape suite through the tool handlers (issue 11's ten root causes, several forms each; escape-cases.ts).
 * Every case, in every mode, must leave everything outside the writable root byte-identical (contents, modes,
 * owners, link targets). Without the sandbox the analyser must refuse each one with permission_denied before
 * anything runs; with the sandbox on, the analyser may let a command run, and the read-only mounts stop it.
 */

type Mode = "analyser" | "sandbox";
const matrix: Array<{ attempt: EscapeCase; mode: Mode; label: string }> = escapeCases.flatMap(attempt =>
  attempt.tool !== "Bash"
    ? [{ attempt, mode: "analyser" as const, label: `${attempt.cause} — ${attempt.tool}: ${attempt.name}` }]
    : (["analyser", "sandbox"] as const)
        .filter(mode => mode === "sandbox" || !attempt.sandboxOnly)
        .map(mode => ({ attempt, mode, label: `${attempt.cause} — Bash [${mode}]: ${attempt.name}` })),
);

describe("security: attempted escapes leave the outside byte-identical", () => {
  let p: Layout;
  const cwd = process.cwd();
  beforeEach(() => {
    p = makeLayout(hostTempDir("escape-"));
  });
  afterEach(() => process.chdir(cwd));

  it("covers each of the ten root causes with several forms", () => {
    const causes = new Map<string, number>();
    for (const attempt of escapeCases) causes.set(attempt.cause, (causes.get(attempt.cause) ?? 0) + 1);
    expect([...causes.keys()].filter(cause => cause !== "baseline")).toHaveLength(9);
    for (const [cause, count] of causes) expect(count, cause).toBeGreaterThanOrEqual(4);
  });

  it.for(matrix)("$label", async ({ attempt, mode }, ctx) => {
    const skipped = attempt.skip?.(p);
    if (skipped) ctx.skip(skipped);
    if (mode === "sandbox") requireSandbox(ctx);
    attempt.setup?.(p);
    // The host process's own directory is the workspace: /proc/self/cwd must not be read from the host's view.
    process.chdir(p.ws);
    const tools = toolsFor({
      cwd: p.ws,
      allowedDirectories: [p.ws, ...(attempt.roots?.(p) ?? [])],
      bash: {
        sandbox: mode === "sandbox",
        env: { HOME: p.home, ...attempt.env?.(p) },
      },
    });
    const outsideBefore = outsideOfRoot(p, snapshot);
    const result = await call(tools[attempt.tool], attempt.input(p), {
      ...(attempt.grants ? { grants: attempt.grants(p) } : {}),
      ...(attempt.contextGrants ? { context: { workspaceGrants: attempt.contextGrants(p) } } : {}),
    });
    await new Promise(resolve =>
      setTimeout(resolve, attempt.name.includes("process substitution") ? 300 : 0),
    );
    expect(outsideOfRoot(p, snapshot)).toEqual(outsideBefore);
    expect(readFileSync(`${p.outside}/existing.txt`, "utf8")).toBe("original");
    if (mode === "analyser") {
      expect(result.isError, text(result)).toBe(true);
      if (!attempt.refusal) {
        const details = denial(result);
        expect(details).toMatchObject({ code: "permission_denied", tool: attempt.tool });
        expect(details.allowedRoots).toContain(p.ws);
        expect(typeof details.suggestedNextStep).toBe("string");
        if (attempt.tool === "Bash") expect(details).toMatchObject({ sandboxed: false });
      }
    }
  });
});

describe("security: the analyser says why and how to proceed", () => {
  it("names the mode, the construct and the ways forward", async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "mode-")));
    const bash = toolsFor({ cwd: ws, bash: { sandbox: false } }).Bash;
    const details = denial(await call(bash, { command: "python3 -c 'print(1)'" }));
    expect(details).toMatchObject({ code: "permission_denied", sandboxed: false, resolvedPath: null });
    expect(details.mode).toBe("the host turned the sandbox off (sandbox: false)");
    expect(String(details.message)).toContain("python3 is not a command the analyser models");
    expect(String(details.suggestedNextStep)).toContain("enable the bubblewrap sandbox");
    expect(String(details.suggestedNextStep)).toContain("bash.approveUnmodeled");
  });
});
type Granted = Layout & { granted: string };

interface AllowedCase {
  name: string;
  setup?: (p: Granted) => void;
  tool: "Write" | "Edit" | "Bash";
  input: (p: Granted) => Record<string, unknown>;
  grants?: (p: Granted) => WorkspaceGrant[];
  env?: (p: Granted) => Record<string, string>;
  /** The file that must exist afterwards, and its content. */
  expect: (p: Granted) => [path: string, content: string | RegExp] | undefined;
}

const allowed: AllowedCase[] = [
  {
    name: "Write inside the root",
    tool: "Write",
    input: () => ({ file_path: "new.txt", content: "ok" }),
    expect: p => [`${p.ws}/new.txt`, "ok"],
  },
  {
    name: "Write creates missing parents inside the root",
    tool: "Write",
    input: () => ({ file_path: "a/b/c.txt", content: "deep" }),
    expect: p => [`${p.ws}/a/b/c.txt`, "deep"],
  },
  {
    name: "Write inside a granted root",
    tool: "Write",
    input: p => ({ file_path: `${p.granted}/g.txt`, content: "granted" }),
    grants: p => [{ root: p.granted, access: ["write"], reason: "shared deliverables" }],
    expect: p => [`${p.granted}/g.txt`, "granted"],
  },
  {
    name: "Edit inside a granted root",
    tool: "Edit",
    input: p => ({ file_path: `${p.granted}/e.txt`, old_string: "", new_string: "created by edit" }),
    grants: p => [{ root: p.granted, access: ["write"] }],
    expect: p => [`${p.granted}/e.txt`, "created by edit"],
  },
  {
    name: "Bash redirect inside the root",
    tool: "Bash",
    input: () => ({ command: "echo ok > b.txt" }),
    expect: p => [`${p.ws}/b.txt`, "ok\n"],
  },
  {
    name: "Bash write inside a granted root",
    tool: "Bash",
    input: p => ({ command: `echo ok > ${p.granted}/b.txt` }),
    grants: p => [{ root: p.granted, access: ["write"] }],
    expect: p => [`${p.granted}/b.txt`, "ok\n"],
  },
  {
    name: "Bash > /dev/null",
    tool: "Bash",
    input: () => ({ command: "echo x > /dev/null && echo done > d.txt" }),
    expect: p => [`${p.ws}/d.txt`, "done\n"],
  },
  {
    name: "Bash 2>/dev/null, &>/dev/null, >&2 and tee /dev/null",
    tool: "Bash",
    input: () => ({
      command: "ls /nonexistent 2>/dev/null; echo a &>/dev/null; echo b >&2; echo c | tee /dev/null > t.txt",
    }),
    expect: p => [`${p.ws}/t.txt`, "c\n"],
  },
  {
    name: "Bash cd into a subdirectory then a relative write",
    tool: "Bash",
    input: () => ({ command: "cd sub && echo ok > in-sub.txt" }),
    expect: p => [`${p.ws}/sub/in-sub.txt`, "ok\n"],
  },
  {
    name: "Bash mkdir with brace expansion",
    tool: "Bash",
    input: () => ({ command: "mkdir -p m/{a,b}" }),
    expect: p => [`${p.ws}/m/b`, /.*/],
  },
  {
    name: "Bash ~ and $PWD expand to allowed paths",
    tool: "Bash",
    input: () => ({ command: 'echo a > ~/home.txt && echo b > "$PWD/pwd.txt"' }),
    env: p => ({ HOME: p.ws }),
    expect: p => [`${p.ws}/pwd.txt`, "b\n"],
  },
  {
    name: "Bash glob inside the root",
    tool: "Bash",
    input: () => ({ command: "touch a.tmp b.tmp && rm -f *.tmp && echo gone > g.txt" }),
    expect: p => [`${p.ws}/g.txt`, "gone\n"],
  },
  {
    name: "Bash rm of a symlink inside the root removes the link, not its outside target",
    setup: p => symlinkSync(`${p.outside}/existing.txt`, `${p.ws}/to-outside`),
    tool: "Bash",
    input: () => ({ command: "rm to-outside && echo removed > r.txt" }),
    expect: p => [`${p.outside}/existing.txt`, "original"],
  },
  {
    name: "Bash sed -i, cp and mv inside the root",
    tool: "Bash",
    input: () => ({
      command: "echo old > s.txt && sed -i s/old/new/ s.txt && cp s.txt c.txt && mv c.txt sub/m.txt",
    }),
    expect: p => [`${p.ws}/sub/m.txt`, "new\n"],
  },
];

const allowedMatrix = allowed.flatMap(entry =>
  entry.tool === "Bash"
    ? (["analyser", "sandbox"] as const).map(mode => ({
        entry,
        mode,
        label: `Bash [${mode}]: ${entry.name}`,
      }))
    : [{ entry, mode: "analyser" as const, label: `${entry.tool}: ${entry.name}` }],
);

describe("security: writes inside the roots and granted roots succeed, in both modes", () => {
  let p: Layout & { granted: string };

  beforeEach(() => {
    p = { ...makeLayout(hostTempDir("allowed-")), granted: "" };
    p.granted = `${p.base}/granted`;
    mkdirSync(p.granted);
  });

  it.for(allowedMatrix)("$label", async ({ entry, mode }, ctx) => {
    if (mode === "sandbox") requireSandbox(ctx);
    entry.setup?.(p);
    const tools = toolsFor({
      cwd: p.ws,
      allowedDirectories: [p.ws],
      bash: { sandbox: mode === "sandbox", env: { HOME: p.home, ...entry.env?.(p) } },
    });
    const result = await call(
      tools[entry.tool],
      entry.input(p),
      entry.grants ? { grants: entry.grants(p) } : {},
    );
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    const expected = entry.expect(p);
    if (expected) {
      const [path, content] = expected;
      expect(existsSync(path)).toBe(true);
      if (typeof content === "string") expect(readFileSync(path, "utf8")).toBe(content);
    }
  });
});
