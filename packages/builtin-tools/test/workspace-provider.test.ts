import { existsSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentFactory } from "@agent-lattice/core";

const { createAgent } = createAgentFactory();

import { createScriptedModelClient, systemText, textTurn, toolTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import {
  createAgentWorkspace,
  createAgentWorkspaceTools,
  createBuiltinWorkspaceProvider,
  defaultWorkspaceRoot,
} from "../src/index.js";
import { workspaceDirName } from "../src/workspace-provider.js";
import { call, tempDir, text } from "./helpers.js";

const byName = (tools: ReturnType<typeof createAgentWorkspaceTools>) =>
  Object.fromEntries(tools.map(definition => [definition.name, definition]));

describe("createBuiltinWorkspaceProvider", () => {
  it("sessions get identical tool definitions (the path is in the system prompt only), so they share a prompt cache entry", () => {
    const provider = createBuiltinWorkspaceProvider({ root: tempDir("provider-") });
    const [one, two] = ["s-1", "s-2"].map(sessionId => provider.createSession({ sessionId }));
    const specs = (tools: ReturnType<typeof createAgentWorkspaceTools>) =>
      JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
    expect(specs(one!.tools)).toBe(specs(two!.tools));
    expect(byName(one!.tools).Bash!.description).toContain(
      "your private workspace (its path is in the system prompt)",
    );
    expect(one!.systemPromptSection).toContain(provider.directoryFor("s-1"));
    // Tools made without the provider (no system prompt section is guaranteed) still name the directory.
    const dir = join(tempDir("tools-"), "w");
    expect(byName(createAgentWorkspaceTools({ root: dir, id: "x" })).Bash!.description).toContain(
      join(dir, "x"),
    );
  });

  it("gives each session its own directory under root, known up front and created on the first tool call", async () => {
    const root = tempDir("provider-");
    const provider = createBuiltinWorkspaceProvider({ root });
    const session = provider.createSession({ sessionId: "s-1" });
    const dir = provider.directoryFor("s-1");
    expect(dir).toBe(join(root, "s-1"));
    expect(session.tools.map(definition => definition.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "LS",
      "Glob",
      "Grep",
      "Bash",
    ]);
    expect(existsSync(dir)).toBe(false);
    const tools = byName(session.tools);
    expect(text(await call(tools.Bash, { command: "pwd" }))).toContain(`<stdout>\n${dir}\n`);
    await call(tools.Write, { file_path: "note.md", content: "hi" });
    expect(readFileSync(join(dir, "note.md"), "utf8")).toBe("hi");
    const other = byName(provider.createSession({ sessionId: "s-2" }).tools);
    const denied = await call(other.Write, { file_path: join(dir, "steal.md"), content: "x" });
    expect(JSON.parse(text(denied))).toMatchObject({
      code: "permission_denied",
      allowedRoots: [join(root, "s-2")],
    });
  });

  it("writes a system prompt section with the path, the read/write rules and the delegation strategy", () => {
    const root = tempDir("provider-");
    const section = createBuiltinWorkspaceProvider({ root }).createSession({
      sessionId: "abc",
      agentName: "backend",
    }).systemPromptSection!;
    const dir = join(root, "abc");
    expect(section).toContain(`backend's private workspace is ${dir}.`);
    expect(section).toContain(
      "Read, LS, Glob and Grep are read-only and may read any path this process can read.",
    );
    expect(section).toContain(
      `Write, Edit and Bash writes are allowed only inside your workspace roots (${dir}) and inside roots granted to the current task`,
    );
    expect(section).toContain(
      'choose one workspace strategy explicitly: ask the member to write deliverables in its own private workspace and report the paths, or provide workspaceGrants: [{ root, access: ["write"], reason }] for every shared or manager-owned root named as a write destination.',
    );
  });

  it("defaults root to a per-user directory: <os.tmpdir()>/agent-lattice-<uid>/workspaces", () => {
    expect(defaultWorkspaceRoot()).toBe(
      join(realpathSync(tmpdir()), `agent-lattice-${process.getuid?.()}`, "workspaces"),
    );
    expect(createBuiltinWorkspaceProvider().root).toBe(defaultWorkspaceRoot());
  });

  it("turns a session id that is not one safe path segment into a slug plus hash", () => {
    const root = tempDir("provider-");
    const provider = createBuiltinWorkspaceProvider({ root });
    expect(provider.directoryFor("../../etc")).toMatch(new RegExp(`^${root}/etc-[0-9a-f]{16}$`));
    expect(workspaceDirName("..")).toMatch(/^session-[0-9a-f]{16}$/);
    expect(workspaceDirName("a/b")).not.toBe(workspaceDirName("a-b"));
  });

  it("rejects unknown options at assembly", () => {
    expect(() => createBuiltinWorkspaceProvider({ rooot: "/x" } as never)).toThrow(
      'createBuiltinWorkspaceProvider(): unknown option "rooot". Check for a typo, or upgrade the SDK if this option was added in a newer version.',
    );
    expect(() => createBuiltinWorkspaceProvider({ bash: { sandbox: "docker" } } as never)).toThrow(
      /sandbox must be "auto", true or false/,
    );
  });

  it("plugs into core's createAgent: the model's Write lands in the session's workspace, the section is in the system prompt", async () => {
    const root = tempDir("provider-");
    const provider = createBuiltinWorkspaceProvider({ root });
    const client = createScriptedModelClient({
      script: [
        toolTurn({ name: "Write", input: { file_path: "report.md", content: "# Report" } }),
        textTurn("written"),
      ],
    });
    const agent = createAgent({
      model: "m",
      modelClient: client,
      workspace: provider,
      systemPrompt: "Be brief.",
    });
    const result = await agent.prompt("write the report");
    expect(result.result).toBe("written");
    // With prompt caching the system prompt is sent as blocks (the host's prompt, then the workspace section).
    const system = systemText(client.requests[0]) ?? "";
    expect(system.startsWith("Be brief.\n\n# Workspace")).toBe(true);
    const dir = /private workspace is (\S+)\./.exec(system)![1]!;
    expect(dir.startsWith(`${root}/`)).toBe(true);
    expect(readFileSync(join(dir, "report.md"), "utf8")).toBe("# Report");
  });

  it("enforces the query's workspaceGrants through the agent loop", async () => {
    const root = tempDir("provider-");
    const shared = tempDir("shared-");
    const script = () => [
      toolTurn({ name: "Write", input: { file_path: `${shared}/out.md`, content: "shared" } }),
      textTurn("done"),
    ];
    const client = createScriptedModelClient({ script: [...script(), ...script()] });
    const agent = createAgent({
      model: "m",
      modelClient: client,
      workspace: createBuiltinWorkspaceProvider({ root }),
    });
    await agent.prompt("write without a grant");
    expect(existsSync(`${shared}/out.md`)).toBe(false);
    const deniedResult = JSON.stringify(client.requests[1]!.messages.at(-1)!.content);
    expect(deniedResult).toContain("permission_denied");
    await agent.prompt("write with a grant", {
      permissions: { workspaceGrants: [{ root: shared, access: ["write"], reason: "shared" }] },
    });
    expect(readFileSync(`${shared}/out.md`, "utf8")).toBe("shared");
  });
});

describe("createAgentWorkspaceTools / createAgentWorkspace", () => {
  it("roots the tools in a fresh private directory: cwd and only writable root", async () => {
    const root = tempDir("workspace-");
    const workspace = createAgentWorkspace({ root });
    expect(workspace.dir.startsWith(`${root}/`)).toBe(true);
    const tools = byName(workspace.tools);
    await call(tools.Write, { file_path: "a.txt", content: "a" });
    expect(readFileSync(join(workspace.dir, "a.txt"), "utf8")).toBe("a");
    const outside = await call(tools.Write, { file_path: "../escape.txt", content: "x" });
    expect(JSON.parse(text(outside))).toMatchObject({
      code: "permission_denied",
      allowedRoots: [workspace.dir],
    });
  });

  it("returns just the tools, optionally without Bash", () => {
    const tools = createAgentWorkspaceTools({ root: tempDir("workspace-"), bash: false });
    expect(tools.map(definition => definition.name)).toEqual(["Read", "Write", "Edit", "LS", "Glob", "Grep"]);
  });
});
