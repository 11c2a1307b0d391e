import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  call,
  groupExists,
  liveGroupMembers,
  processRunning,
  tempDir,
  text,
  toolsFor,
  waitFor,
} from "./helpers.js";
import { requireSandbox } from "./sandbox-required.js";

// These tests watch the shell's own process group, so they run without the sandbox (its tests are in sandbox.test.ts).
const bashIn = (dir: string, maxOutputBytes?: number) =>
  toolsFor({ cwd: dir, bash: { sandbox: false, ...(maxOutputBytes ? { maxOutputBytes } : {}) } }).Bash;

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

  it("kills set -m jobs (own process groups, same session) when the command ends, without the sandbox", async () => {
    const dir = tempDir("bash-");
    const bash = toolsFor({ cwd: dir, bash: { sandbox: false, approveUnmodeled: () => true } }).Bash;
    const result = await call(bash, { command: "set -m; sleep 31.3 & echo started" });
    expect(text(result)).toContain("started");
    expect(await waitFor(() => !processRunning("sleep 31.3"), 3000)).toBe(true);
  });

  it("asks approveUnmodeled about commands the analyser cannot model, with the reasons, and runs them if approved", async () => {
    const dir = tempDir("bash-");
    const asked: unknown[] = [];
    const bash = toolsFor({
      cwd: dir,
      bash: {
        sandbox: false,
        approveUnmodeled: request => {
          asked.push(request);
          return request.command.startsWith("python3");
        },
      },
    }).Bash;
    const ran = await call(bash, { command: "python3 -c 'print(6 * 7)'" });
    expect(text(ran)).toContain("42");
    expect(asked).toEqual([
      {
        command: "python3 -c 'print(6 * 7)'",
        cwd: dir,
        reasons: [expect.stringContaining("python3 is not a command the analyser models")],
      },
    ]);
    const refused = await call(bash, { command: "node -e 'console.log(1)'" });
    expect(JSON.parse(text(refused))).toMatchObject({ code: "permission_denied", sandboxed: false });
  });

  it("never lets approveUnmodeled approve a write the analyser knows is outside the roots", async () => {
    const dir = tempDir("bash-");
    const other = tempDir("bash-other-");
    const bash = toolsFor({ cwd: dir, bash: { sandbox: false, approveUnmodeled: () => true } }).Bash;
    const result = await call(bash, { command: `python3 -c 1; echo x > ${other}/x.txt` });
    expect(JSON.parse(text(result))).toMatchObject({
      code: "permission_denied",
      resolvedPath: `${other}/x.txt`,
    });
    expect(existsSync(`${other}/x.txt`)).toBe(false);
  });
});

describe("Bash environment: an allowlist, never the host's process.env", () => {
  it.for(["analyser", "sandbox"] as const)(
    "env inside Bash has no ANTHROPIC_API_KEY or other host variable [%s]",
    async (mode, ctx) => {
      if (mode === "sandbox") requireSandbox(ctx);
      const dir = tempDir("bash-env-");
      const saved = { key: process.env.ANTHROPIC_API_KEY, secret: process.env.SOME_HOST_SECRET };
      process.env.ANTHROPIC_API_KEY = "sk-ant-host-secret";
      process.env.SOME_HOST_SECRET = "hunter2";
      try {
        const bash = toolsFor({
          cwd: dir,
          bash: { sandbox: mode === "sandbox", env: { GIVEN: "yes" } },
        }).Bash;
        const output = text(await call(bash, { command: "env" }));
        expect(output).not.toContain("ANTHROPIC_API_KEY");
        expect(output).not.toContain("sk-ant-host-secret");
        expect(output).not.toContain("SOME_HOST_SECRET");
        const names = output
          .split("\n")
          .map(line => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1])
          .filter((name): name is string => name !== undefined);
        const allowed = /^(PATH|HOME|LANG|LANGUAGE|TERM|TZ|LC_[A-Z_]+|GIVEN|PWD|SHLVL|_|OLDPWD)$/;
        expect(names.filter(name => !allowed.test(name))).toEqual([]);
        expect(output).toContain(`HOME=${dir}`);
        expect(output).toContain("GIVEN=yes");
      } finally {
        if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
        else process.env.ANTHROPIC_API_KEY = saved.key;
        if (saved.secret === undefined) delete process.env.SOME_HOST_SECRET;
        else process.env.SOME_HOST_SECRET = saved.secret;
      }
    },
  );

  it("passes what the host gives explicitly, and undefined removes a variable", async () => {
    const dir = tempDir("bash-env-");
    const bash = toolsFor({ cwd: dir, bash: { sandbox: false, env: { FOO: "x", PATH: undefined } } }).Bash;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
    const output = text(await call(bash, { command: 'echo "FOO=$FOO PATH=${PATH-unset}"' }));
    expect(output).toContain("FOO=x PATH=");
  });
});
