// The default workspace root is private to the OS user (issue 11): created 0700, owner and mode verified, no
// symlinks in its path; an unsafe root stops createSession (so createAgent) with a WorkspaceError and no tool runs.
// A session resumed with the same id gets the same workspace back.
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createAgentFactory } from "@agent-lattice/core";
import { createScriptedModelClient, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentWorkspace, createBuiltinWorkspaceProvider, WorkspaceError } from "../src/index.js";
import { call, tempDir, text } from "./helpers.js";

const { createAgent } = createAgentFactory();
const uid = process.getuid?.() ?? -1;
let savedTmp: string | undefined;
let tmp: string;
beforeEach(() => {
  savedTmp = process.env.TMPDIR;
  tmp = tempDir("private-tmp-");
  process.env.TMPDIR = tmp; // os.tmpdir() reads it on every call: the default root moves into this test's dir
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

const userDir = () => join(tmp, `agent-lattice-${uid}`);

function agentWithWrite() {
  const client = createScriptedModelClient({
    script: [toolTurn({ name: "Write", input: { file_path: "x.txt", content: "x" } }), textTurn("done")],
  });
  return {
    client,
    make: () => createAgent({ model: "m", modelClient: client, workspace: createBuiltinWorkspaceProvider() }),
  };
}

describe("the default workspace root is private to the OS user", () => {
  it("is created with mode 0700 for the per-user directory, the root and each workspace", async () => {
    const workspace = createAgentWorkspace({ id: "s1" });
    expect(workspace.dir).toBe(join(userDir(), "workspaces", "s1"));
    const tools = Object.fromEntries(workspace.tools.map(entry => [entry.name, entry]));
    await call(tools.Write, { file_path: "a.txt", content: "a" });
    for (const dir of [userDir(), join(userDir(), "workspaces"), workspace.dir]) {
      const info = statSync(dir);
      expect(info.mode & 0o777).toBe(0o700);
      expect(info.uid).toBe(uid);
    }
  });

  it("refuses a per-user directory with the wrong mode: createAgent throws WorkspaceError and no tool runs", () => {
    mkdirSync(userDir(), { mode: 0o777 });
    chmodSync(userDir(), 0o777);
    const { client, make } = agentWithWrite();
    expect(make).toThrow(WorkspaceError);
    expect(make).toThrow(/has mode 0777, which lets other users in \(0700 is required\)/);
    expect(client.requests).toHaveLength(0);
    expect(existsSync(join(userDir(), "workspaces"))).toBe(false);
  });

  it("refuses a per-user directory owned by another user", ctx => {
    if (uid !== 0) ctx.skip("needs root to give the directory to another user");
    mkdirSync(userDir(), { mode: 0o700 });
    chownSync(userDir(), 65534, 65534);
    const { client, make } = agentWithWrite();
    expect(make).toThrow(/belongs to user id 65534, not to this process/);
    expect(client.requests).toHaveLength(0);
  });

  it("refuses a symlink in place of the per-user directory or of the workspaces directory", () => {
    const elsewhere = tempDir("elsewhere-");
    symlinkSync(elsewhere, userDir());
    expect(() => createAgentWorkspace({ id: "s" })).toThrow(/is a symbolic link/);
    expect(existsSync(join(elsewhere, "workspaces"))).toBe(false);
  });

  it("re-checks the workspace on every tool call: one swapped for a symlink stops the tools", async () => {
    const workspace = createAgentWorkspace({ id: "swap" });
    const tools = Object.fromEntries(workspace.tools.map(entry => [entry.name, entry]));
    await call(tools.Write, { file_path: "a.txt", content: "a" });
    const { renameSync } = await import("node:fs");
    const elsewhere = tempDir("elsewhere-");
    renameSync(workspace.dir, join(elsewhere, "moved"));
    symlinkSync(elsewhere, workspace.dir);
    await expect(call(tools.Write, { file_path: "b.txt", content: "b" })).rejects.toThrow(
      /is a symbolic link/,
    );
    expect(existsSync(join(elsewhere, "b.txt"))).toBe(false);
  });

  it("a root the host passes must be owned by this user and not writable by group or others", () => {
    const root = tempDir("host-root-");
    chmodSync(root, 0o777);
    expect(() => createBuiltinWorkspaceProvider({ root }).createSession({ sessionId: "s" })).toThrow(
      /is writable by other users \(mode 0777\)/,
    );
    chmodSync(root, 0o755);
    expect(() => createBuiltinWorkspaceProvider({ root }).createSession({ sessionId: "s" })).not.toThrow();
  });
});

describe("a resumed session gets its workspace back", () => {
  it("createAgent({ sessionId }) with a fresh provider (as in a new process) finds the files of the earlier session", async () => {
    const first = createScriptedModelClient({
      script: [
        toolTurn({ name: "Write", input: { file_path: "notes.md", content: "remember me" } }),
        textTurn("ok"),
      ],
    });
    await createAgent({
      model: "m",
      modelClient: first,
      sessionId: "ada",
      workspace: createBuiltinWorkspaceProvider(),
    }).prompt("write");
    const second = createScriptedModelClient({
      script: [toolTurn({ name: "Read", input: { file_path: "notes.md" } }), textTurn("read")],
    });
    const resumed = createAgent({
      model: "m",
      modelClient: second,
      sessionId: "ada",
      workspace: createBuiltinWorkspaceProvider(),
    });
    await resumed.prompt("read it back");
    const toolResult = JSON.stringify(second.requests[1]!.messages.at(-1)!.content);
    expect(toolResult).toContain("remember me");
    expect(readFileSync(join(userDir(), "workspaces", "ada", "notes.md"), "utf8")).toBe("remember me");
    expect(text({ content: toolResult })).not.toContain("permission_denied");
  });
});

describe("the workspace follows the session's lifecycle", () => {
  it("agent.close() deletes an unnamed session's workspace, keeps a named one, and keepWorkspace keeps any", async () => {
    const run = async (options: { sessionId?: string }, close?: { keepWorkspace: boolean }) => {
      const client = createScriptedModelClient({
        script: [toolTurn({ name: "Write", input: { file_path: "f.txt", content: "x" } }), textTurn("ok")],
      });
      const agent = createAgent({
        model: "m",
        modelClient: client,
        workspace: createBuiltinWorkspaceProvider(),
        ...options,
      });
      await agent.prompt("write");
      const dir = join(userDir(), "workspaces", agent.sessionId);
      expect(existsSync(join(dir, "f.txt"))).toBe(true);
      await agent.close(close);
      return existsSync(dir);
    };
    expect(await run({})).toBe(false);
    expect(await run({ sessionId: "named" })).toBe(true);
    expect(await run({}, { keepWorkspace: true })).toBe(true);
    expect(await run({ sessionId: "named-2" }, { keepWorkspace: false })).toBe(false);
  });

  it("close() removes a symlink planted in the workspace as a link, never its target", async () => {
    const outside = tempDir("outside-");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(outside, "keep.txt"), "mine");
    const session = createBuiltinWorkspaceProvider().createSession({ sessionId: "linked" });
    const tools = Object.fromEntries(session.tools.map(entry => [entry.name, entry]));
    await call(tools.Write, { file_path: "a.txt", content: "a" });
    symlinkSync(outside, join(userDir(), "workspaces", "linked", "out"));
    await session.close?.({ keep: false });
    expect(existsSync(join(userDir(), "workspaces", "linked"))).toBe(false);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("mine");
  });
});
