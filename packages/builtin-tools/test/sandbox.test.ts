import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bubblewrapPrefix } from "../src/bash/sandbox.js";
import { call, hostTempDir, processRunning, snapshot, tempDir, text, toolsFor, waitFor } from "./helpers.js";
import { requireSandbox } from "./sandbox-required.js";

/**
 * The bubblewrap sandbox, the layer that enforces Bash's write boundary (B2). Outside files live outside /tmp here
 * (hostTempDir): the sandbox's private /tmp would hide them, and these tests must show them read-only.
 */
function setup(options: { network?: boolean } = {}) {
  const base = hostTempDir("sandbox-");
  const ws = hostTempDir("sandbox-ws-");
  writeFileSync(`${base}/existing.txt`, "original");
  const bash = toolsFor({
    cwd: ws,
    allowedDirectories: [ws],
    bash: { sandbox: true, env: { OUT: base }, ...options },
  }).Bash;
  return { base, ws, bash };
}

describe("Bash in the bubblewrap sandbox", () => {
  it("writes inside the root", async ctx => {
    requireSandbox(ctx);
    const { ws, bash } = setup();
    const result = await call(bash, { command: "echo inside > a.txt && cat a.txt" });
    expect(text(result)).toContain("inside");
    expect(readFileSync(`${ws}/a.txt`, "utf8")).toBe("inside\n");
  });

  it("still refuses obvious writes outside with permission_denied before running", async ctx => {
    requireSandbox(ctx);
    const { base, bash } = setup();
    const result = await call(bash, { command: `echo x > ${base}/direct.txt` });
    expect(JSON.parse(text(result))).toMatchObject({ code: "permission_denied", sandboxed: true });
    expect(existsSync(`${base}/direct.txt`)).toBe(false);
  });

  it("lets run-time targets run; the read-only file system stops them and the result says so", async ctx => {
    requireSandbox(ctx);
    const { base, bash } = setup();
    const before = snapshot(base);
    const result = await call(bash, { command: 'echo x > "$OUT/var.txt"; echo status=$?' });
    expect(text(result)).toMatch(/Read-only file system/);
    expect(text(result)).toMatch(/\[Sandbox: the command runs in an OS sandbox where only .* can be written/);
    expect(snapshot(base)).toEqual(before);
  });

  it.for([
    ["python3 -c", (out: string) => `python3 -c "open('${out}/existing.txt', 'w').write('pwned')"`],
    ["node -e", (out: string) => `node -e "require('fs').writeFileSync('${out}/existing.txt', 'pwned')"`],
    ["perl -i", (out: string) => `perl -i -pe s/original/pwned/ ${out}/existing.txt`],
    ["awk >", (out: string) => `awk 'BEGIN { print "pwned" > "${out}/existing.txt" }'`],
    ["mount -o remount,rw /", (out: string) => `mount -o remount,rw / ; echo pwned > ${out}/existing.txt`],
    ["a script file", (out: string) => `printf 'echo pwned > ${out}/existing.txt' > s.sh; bash s.sh`],
  ] as const)("%s cannot write outside", async ([, command], ctx) => {
    requireSandbox(ctx);
    const { base, bash } = setup();
    const before = snapshot(base);
    const result = await call(bash, { command: `${command(base)}; echo exit=$?` });
    expect(text(result)).toContain("exit=");
    expect(snapshot(base)).toEqual(before);
    expect(readFileSync(`${base}/existing.txt`, "utf8")).toBe("original");
  });

  it("the sandboxed process has no effective capabilities, even when the host runs as root", async ctx => {
    requireSandbox(ctx);
    const { bash } = setup();
    const output = text(await call(bash, { command: "grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status" }));
    expect(output).toMatch(/CapEff:\s+0000000000000000/);
    expect(output).toMatch(/CapPrm:\s+0000000000000000/);
    expect(output).toMatch(/CapAmb:\s+0000000000000000/);
  });

  it("has a private /dev, a private /tmp and its own PID namespace", async ctx => {
    requireSandbox(ctx);
    const { bash } = setup();
    const marker = tempDir("host-tmp-marker-");
    const output = text(
      await call(bash, { command: `ls /dev | tr '\\n' ' '; echo; ls -d ${marker} 2>&1; echo pid=$$` }),
    );
    expect(output).toContain("null");
    expect(output).not.toMatch(/\bsda\b|\bnvme0|\bvda\b/);
    expect(output).toContain("No such file or directory");
    expect(output).toMatch(/pid=\d{1,2}\b/);
  });

  it("makes granted roots writable for the call that has the grant", async ctx => {
    requireSandbox(ctx);
    const { bash } = setup();
    const granted = hostTempDir("sandbox-granted-");
    const result = await call(
      bash,
      { command: `echo g > ${granted}/g.txt` },
      { grants: [{ root: granted, access: ["write"] }] },
    );
    expect(result.isError).toBe(false);
    expect(readFileSync(`${granted}/g.txt`, "utf8")).toBe("g\n");
  });

  it("kills everything on timeout, including processes that left the group with setsid", async ctx => {
    requireSandbox(ctx);
    const { bash } = setup();
    const result = await call(bash, { command: "setsid sleep 31.7 & sleep 31.7; wait", timeout: 500 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("timed out");
    expect(await waitFor(() => !processRunning("sleep 31.7"), 3000)).toBe(true);
  });

  it("kills set -m jobs and setsid daemons when the command ends", async ctx => {
    requireSandbox(ctx);
    const { bash } = setup();
    const result = await call(bash, { command: "set -m; sleep 32.1 & setsid sleep 32.2 & echo started" });
    expect(text(result)).toContain("started");
    expect(await waitFor(() => !processRunning("sleep 32.1") && !processRunning("sleep 32.2"), 3000)).toBe(
      true,
    );
  });

  it("network: false cuts the network (only loopback is left)", async ctx => {
    requireSandbox(ctx);
    const { bash } = setup({ network: false });
    const output = text(
      await call(bash, { command: "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '" }),
    );
    expect(output).toBe("Exit code: 0\n<stdout>\nlo\n</stdout>");
  });

  it("sandbox: true refuses to run, saying why, when bubblewrap cannot be used", async () => {
    const ws = tempDir("sandbox-missing-");
    const saved = process.env.PATH;
    // A PATH without bwrap is how a machine without it looks (the probe is per process, so use a fresh module).
    const { vi } = await import("vitest");
    vi.resetModules();
    process.env.PATH = "/nonexistent";
    try {
      const fresh = await import("../src/index.js");
      const bash = Object.fromEntries(
        fresh.createBuiltinTools({ cwd: ws, bash: { sandbox: true } }).map(entry => [entry.name, entry]),
      ).Bash;
      const result = await call(bash, { command: "echo hi > a.txt" });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /Bash is configured to require the bubblewrap sandbox \(sandbox: true\), but bwrap is not installed/,
      );
      expect(existsSync(`${ws}/a.txt`)).toBe(false);
    } finally {
      process.env.PATH = saved;
      vi.resetModules();
    }
  });

  it("runs in a working directory under /tmp that is not a writable root (read-only there)", async ctx => {
    requireSandbox(ctx);
    const cwd = tempDir("sandbox-cwd-");
    writeFileSync(`${cwd}/seen.txt`, "visible");
    const root = hostTempDir("sandbox-root-");
    const bash = toolsFor({ cwd, allowedDirectories: [root], bash: { sandbox: true } }).Bash;
    const output = text(await call(bash, { command: `cat seen.txt; echo x > ${root}/w.txt && echo wrote` }));
    expect(output).toContain("visible");
    expect(output).toContain("wrote");
    expect(readFileSync(`${root}/w.txt`, "utf8")).toBe("x\n");
  });

  it("the same bwrap arguments confine an unprivileged user (bwrap makes its own user namespace)", async ctx => {
    requireSandbox(ctx);
    if (process.getuid?.() !== 0) ctx.skip("already unprivileged: every other sandbox test covers this case");
    const base = hostTempDir("sandbox-nobody-");
    const ws = hostTempDir("sandbox-nobody-ws-");
    writeFileSync(`${base}/existing.txt`, "original");
    chmodSync(base, 0o777);
    chmodSync(`${base}/existing.txt`, 0o666); // writable for nobody: only the sandbox stands in the way
    chownSync(ws, 65534, 65534);
    const prefix = bubblewrapPrefix([ws], ws, { network: true });
    const run = spawnSync(
      "setpriv",
      [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        ...prefix,
        "/bin/sh",
        "-c",
        `grep CapEff /proc/self/status; echo in > ${ws}/in.txt; echo pwned > ${base}/existing.txt; echo done`,
      ],
      { encoding: "utf8", timeout: 10_000 },
    );
    if (run.error) ctx.skip(`setpriv is not available: ${run.error.message}`);
    expect(run.stdout).toMatch(/CapEff:\s+0000000000000000/);
    expect(run.stdout).toContain("done");
    expect(run.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(`${ws}/in.txt`, "utf8")).toBe("in\n");
    expect(readFileSync(`${base}/existing.txt`, "utf8")).toBe("original");
  });

  it("builds the bwrap command line with every capability dropped and exactly the writable binds", () => {
    const args = bubblewrapPrefix(["/", "/nonexistent-dir"], "/", { network: true });
    expect(args).toEqual(expect.arrayContaining(["--cap-drop", "ALL", "--unshare-pid", "--die-with-parent"]));
    expect(args.join(" ")).toContain("--ro-bind / /");
    expect(args.join(" ")).toContain("--tmpfs /tmp");
    expect(args.join(" ")).not.toContain("/nonexistent-dir");
    expect(args).not.toContain("--unshare-net");
    expect(bubblewrapPrefix([], "/", { network: false })).toContain("--unshare-net");
  });
});
