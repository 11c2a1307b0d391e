import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { call, groupExists, liveGroupMembers, tempDir, text, toolsFor, waitFor } from "./helpers.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent-home" };
const bashIn = (dir: string, maxOutputBytes?: number) =>
  toolsFor({ cwd: dir, bash: { env, ...(maxOutputBytes ? { maxOutputBytes } : {}) } }).Bash;

/** The shell prints its pid first: detached, the shell leads the process group, so pid = pgid. */
const pgidOf = (output: string) => Number(/<stdout>\n(\d+)/.exec(output)?.[1]);

describe("Bash", () => {
  it("runs in cwd and reports the exit code, stdout and stderr", async () => {
    const dir = tempDir("bash-");
    const result = await call(bashIn(dir), { command: "pwd; echo oops >&2", description: "print dir" });
    expect(result.isError).toBe(false);
    expect(text(result)).toBe(`Exit code: 0\n<stdout>\n${dir}\n</stdout>\n<stderr>\noops\n</stderr>`);
  });

  it("reports a non-zero exit code without marking the result an error", async () => {
    const result = await call(bashIn(tempDir("bash-")), { command: "exit 3" });
    expect(result.isError).toBe(false);
    expect(text(result)).toBe("Exit code: 3");
  });

  it("starts every call in cwd: cd does not persist", async () => {
    const dir = tempDir("bash-");
    const bash = bashIn(dir);
    await call(bash, { command: "cd /" });
    expect(text(await call(bash, { command: "pwd" }))).toContain(`<stdout>\n${dir}\n`);
  });

  it("kills the whole process tree on timeout (sleep 30 & sleep 30; wait)", async () => {
    const started = Date.now();
    const result = await call(bashIn(tempDir("bash-")), {
      command: "echo $$; sleep 30 & sleep 30; wait",
      timeout: 500,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      "Command timed out after 500 ms; it and every process it started were killed.",
    );
    const pgid = pgidOf(text(result));
    expect(pgid).toBeGreaterThan(0);
    // Dead at once; this VM's init reaps the orphaned zombies a few seconds later, then the group is gone.
    expect(await waitFor(() => liveGroupMembers(pgid).length === 0, 2000)).toBe(true);
    expect(await waitFor(() => !groupExists(pgid), 15_000)).toBe(true);
  }, 30_000);

  it("kills the whole process tree when the query is aborted", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await call(
      bashIn(tempDir("bash-")),
      { command: "echo $$; sleep 30 & sleep 30; wait" },
      { signal: controller.signal },
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Command was cancelled");
    const pgid = pgidOf(text(result));
    expect(await waitFor(() => liveGroupMembers(pgid).length === 0, 2000)).toBe(true);
    expect(await waitFor(() => !groupExists(pgid), 15_000)).toBe(true);
  }, 30_000);

  it("kills background processes left running when the command ends", async () => {
    const dir = tempDir("bash-");
    const result = await call(bashIn(dir), {
      command: "echo $$; (sleep 1; echo late > late.txt) & echo started",
    });
    expect(text(result)).toContain("started");
    const pgid = pgidOf(text(result));
    expect(await waitFor(() => liveGroupMembers(pgid).length === 0, 2000)).toBe(true);
    await new Promise(resolve => setTimeout(resolve, 1500));
    expect(() => readFileSync(`${dir}/late.txt`)).toThrow();
  });

  it("caps each stream, keeping the head and the tail, and says how much was cut", async () => {
    const result = await call(bashIn(tempDir("bash-"), 3000), {
      command: "for i in $(seq 1 2000); do echo line$i; done; echo err >&2",
    });
    const output = text(result);
    expect(output).toMatch(/<stdout \((\d+) bytes cut from the middle\)>/);
    expect(output).toContain("line1\n");
    expect(output).toContain("line2000");
    expect(output).toMatch(/\[… \d+ bytes of output cut here …\]/);
    expect(output).toContain("<stderr>\nerr\n</stderr>");
    const cut = Number(/(\d+) bytes cut from the middle/.exec(output)?.[1]);
    const total = Array.from({ length: 2000 }, (_, index) => `line${index + 1}\n`).join("").length;
    expect(cut).toBe(total - 3000);
  });

  it("rejects a timeout above the 600000 ms maximum at the schema", async () => {
    await expect(call(bashIn(tempDir("bash-")), { command: "true", timeout: 600_001 })).rejects.toThrow();
  });

  it("refuses a command it cannot parse (fail closed), before running anything", async () => {
    const dir = tempDir("bash-");
    const result = await call(bashIn(dir), { command: "echo 'unterminated > x" });
    expect(result.isError).toBe(true);
    expect(JSON.parse(text(result))).toMatchObject({ code: "permission_denied", tool: "Bash" });
    expect(JSON.parse(text(result)).message).toContain("could not be parsed");
  });
});
