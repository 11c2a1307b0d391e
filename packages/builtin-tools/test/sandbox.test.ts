import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bubblewrapStatus } from "../src/bash/sandbox.js";
import { call, snapshot, tempDir, text, toolsFor, waitFor } from "./helpers.js";

const status = bubblewrapStatus();
const reason = status.usable
  ? ""
  : `bubblewrap is not usable here: ${status.reason} (Debian: apt-get install bubblewrap)`;
if (reason) console.warn(`skipping the sandbox tests: ${reason}`);

function setup() {
  const base = tempDir("sandbox-");
  const ws = tempDir("sandbox-ws-");
  writeFileSync(`${base}/existing.txt`, "original");
  const bash = toolsFor({
    cwd: ws,
    allowedDirectories: [ws],
    bash: { sandbox: "bubblewrap", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws, OUT: base } },
  }).Bash;
  return { base, ws, bash };
}

describe.skipIf(!status.usable)("Bash with sandbox: bubblewrap", () => {
  it("writes inside the root", async () => {
    const { ws, bash } = setup();
    const result = await call(bash, { command: "echo inside > a.txt && cat a.txt" });
    expect(text(result)).toContain("inside");
    expect(readFileSync(`${ws}/a.txt`, "utf8")).toBe("inside\n");
  });

  it("still refuses obvious writes outside with permission_denied before running", async () => {
    const { base, bash } = setup();
    const result = await call(bash, { command: `echo x > ${base}/direct.txt` });
    expect(JSON.parse(text(result))).toMatchObject({ code: "permission_denied" });
    expect(existsSync(`${base}/direct.txt`)).toBe(false);
  });

  it("lets run-time targets run, and the read-only file system stops them", async () => {
    const { base, bash } = setup();
    const before = snapshot(base);
    const result = await call(bash, { command: 'echo x > "$OUT/var.txt"; echo status=$?' });
    expect(text(result)).toMatch(/Read-only file system/);
    expect(snapshot(base)).toEqual(before);
  });

  it("stops writes static detection cannot see (awk, python, scripts)", async () => {
    const { base, bash } = setup();
    const before = snapshot(base);
    const result = await call(bash, {
      command: `awk 'BEGIN { print "pwned" > "${base}/existing.txt" }'; printf 'echo x > ${base}/s.txt' > s.sh; bash s.sh`,
    });
    expect(text(result)).toMatch(/Read-only file system|can't redirect|cannot open/i);
    expect(snapshot(base)).toEqual(before);
  });

  it("makes granted roots writable for the call that has the grant", async () => {
    const { bash } = setup();
    const granted = tempDir("sandbox-granted-");
    const result = await call(
      bash,
      { command: `echo g > ${granted}/g.txt` },
      { grants: [{ root: granted, access: ["write"] }] },
    );
    expect(result.isError).toBe(false);
    expect(readFileSync(`${granted}/g.txt`, "utf8")).toBe("g\n");
  });

  it("kills everything on timeout, including processes that left the group with setsid", async () => {
    const { bash } = setup();
    const result = await call(bash, { command: "setsid sleep 31.7 & sleep 31.7; wait", timeout: 500 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("timed out");
    // bwrap leads the process group; the command's PID namespace dies with it, setsid or not.
    expect(await waitFor(() => !processRunning("sleep 31.7"), 3000)).toBe(true);
  });
});

/** Whether a process with exactly this command line is alive (not a zombie). */
function processRunning(commandLine: string): boolean {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmd === commandLine && state !== "Z") return true;
    } catch {
      // gone
    }
  }
  return false;
}
