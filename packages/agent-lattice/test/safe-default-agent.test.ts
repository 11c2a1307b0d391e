// Issue 11, "make the default agent safe to run": the README's default createAgent() — its Bash sees an
// allowlisted environment (no provider key), its workspace root is private to the OS user, and a session resumed
// in a new process gets its workspace back.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAgent, createBuiltinWorkspaceProvider, WorkspaceError } from "agent-lattice";
import { textTurn, toolTurn } from "agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mockProvider } from "./helpers.js";

const uid = process.getuid?.() ?? -1;
let savedTmp: string | undefined;
let tmp: string;
beforeEach(() => {
  savedTmp = process.env.TMPDIR;
  tmp = realpathSync(mkdtempSync(join(tmpdir(), "al-safe-")));
  process.env.TMPDIR = tmp; // the default workspace root follows os.tmpdir()
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(tmp, { recursive: true, force: true });
});

const toolResult = (body: { messages: Array<{ content: unknown }> }) =>
  (body.messages.at(-1)!.content as Array<{ content: string; is_error?: boolean }>)[0]!;

describe("the default agent's Bash environment is an allowlist", () => {
  it.for([
    ["the default (sandbox where available)", undefined],
    ["without the sandbox", false],
  ] as const)("env in Bash shows no ANTHROPIC_API_KEY or other host variable: %s", async ([, sandbox]) => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "sk-ant-from-the-host";
    process.env.HOST_ONLY_SECRET = "do-not-leak";
    try {
      const server = await mockProvider([
        toolTurn({ name: "Bash", input: { command: "env" } }),
        textTurn("ok"),
      ]);
      const agent = createAgent({
        baseURL: server.url,
        model: "deepseek-v4-flash",
        ...(sandbox === false
          ? { workspace: createBuiltinWorkspaceProvider({ bash: { sandbox: false } }) }
          : {}),
      });
      await agent.prompt("What is in your environment?", { stream: false });
      const output = toolResult(server.requests[1]!.body).content;
      expect(output).toContain("Exit code: 0");
      expect(output).toContain("PATH=");
      expect(output).not.toContain("ANTHROPIC_API_KEY");
      expect(output).not.toContain("sk-ant-from-the-host");
      expect(output).not.toContain("HOST_ONLY_SECRET");
      // The key still reached the provider: it is the host's, not the model's shell's.
      expect(server.requests[0]!.headers["x-api-key"]).toBe("sk-ant-from-the-host");
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
      delete process.env.HOST_ONLY_SECRET;
    }
  });
});

describe("the default workspace root is private to the OS user", () => {
  it("a per-user directory with a wrong mode stops createAgent() with a WorkspaceError; no request is sent", async () => {
    const userDir = join(tmp, `agent-lattice-${uid}`);
    mkdirSync(userDir);
    chmodSync(userDir, 0o775);
    const server = await mockProvider([toolTurn({ name: "Write", input: { file_path: "x", content: "x" } })]);
    let error: unknown;
    try {
      createAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WorkspaceError);
    expect((error as WorkspaceError).code).toBe("workspace_unsafe");
    expect((error as Error).message).toMatch(/has mode 0775, which lets other users in/);
    expect(server.requests).toHaveLength(0);
  });

  it("a per-user directory owned by someone else stops createAgent() too", async ctx => {
    if (uid !== 0) ctx.skip("needs root to give the directory to another user");
    const { chownSync } = await import("node:fs");
    const userDir = join(tmp, `agent-lattice-${uid}`);
    mkdirSync(userDir, { mode: 0o700 });
    chownSync(userDir, 65534, 65534);
    expect(() => createAgent({ apiKey: "k", model: "m" })).toThrow(/belongs to user id 65534/);
  });
});

describe("a session resumed in a new process keeps its workspace", () => {
  it("createAgent({ sessionId, historyStore }) in a second process reads the files the first one wrote", async () => {
    const history = join(tmp, "ada.jsonl");
    const first = await mockProvider([
      toolTurn({ name: "Write", input: { file_path: "notes.md", content: "Ada likes tea." } }),
      textTurn("Noted."),
    ]);
    expect(await runProcess(first.url, history, "Remember that I like tea.")).toBe("Noted.");
    const second = await mockProvider([
      toolTurn({ name: "Read", input: { file_path: "notes.md" } }),
      textTurn("Tea."),
    ]);
    expect(await runProcess(second.url, history, "What do I like?")).toBe("Tea.");
    const read = toolResult(second.requests[1]!.body);
    expect(read.is_error).toBeUndefined();
    expect(read.content).toContain("Ada likes tea.");
    // The same history was resumed (the first exchange is in the second process's first request).
    expect(JSON.stringify(second.requests[0]!.body.messages)).toContain("Remember that I like tea.");
    expect(readFileSync(join(tmp, `agent-lattice-${uid}`, "workspaces", "ada", "notes.md"), "utf8")).toBe(
      "Ada likes tea.",
    );
  });
});

function runProcess(baseURL: string, history: string, prompt: string): Promise<string> {
  const script = fileURLToPath(new URL("./fixtures/resume-workspace.mjs", import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, baseURL, history, prompt], {
      env: { ...process.env, TMPDIR: tmp },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", chunk => {
      out += chunk;
    });
    child.stderr.on("data", chunk => {
      err += chunk;
    });
    child.once("error", reject);
    child.once("exit", code => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
}
