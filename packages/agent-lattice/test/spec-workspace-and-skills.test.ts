// Spec sections "Agent Workspace Tools", the createBareAgent form of "Minimal Usage", and "Skills", through the
// umbrella's default createAgent() (B1–B4, C1, C21).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAgent,
  createBareAgent,
  createBuiltinTools,
  defineAgent,
  loadSkill,
  skill,
} from "agent-lattice";
import { systemText, textTurn, toolTurn } from "agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mockProvider, unmarked } from "./helpers.js";

const BUILTIN = ["Read", "Write", "Edit", "LS", "Glob", "Grep", "Bash"];
let dir: string;
let cwd: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-ws-spec-"));
  cwd = process.cwd();
  process.chdir(dir);
});
afterEach(async () => {
  process.chdir(cwd);
  await rm(dir, { recursive: true, force: true });
});

const toolResults = (body: { messages: Array<{ content: unknown }> }) =>
  unmarked(body.messages.at(-1)!.content) as Array<{ content: string; is_error?: boolean }>;

describe("spec: Agent Workspace Tools (B1–B4, C1)", () => {
  it("createAgent() includes a private workspace and the seven built-in tools; Write lands in that workspace", async () => {
    const server = await mockProvider([
      toolTurn({ name: "Write", input: { file_path: "notes/plan.md", content: "# Plan\n" } }),
      textTurn("Wrote notes/plan.md."),
    ]);
    const agent = createAgent({ apiKey: "test-key", baseURL: server.url, model: "deepseek-v4-flash" });
    await agent.prompt("Write a plan.");

    const first = server.requests[0]!.body;
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual(BUILTIN);
    const system = String(systemText(first));
    const workspaceDir = /private workspace is (\S+?)\. /.exec(system)?.[1];
    expect(workspaceDir).toBeDefined();
    expect(workspaceDir).toContain(agent.sessionId);
    expect(await readFile(join(workspaceDir!, "notes/plan.md"), "utf8")).toBe("# Plan\n");
    expect(toolResults(server.requests[1]!.body)[0]!.is_error).toBeUndefined();
    await rm(workspaceDir!, { recursive: true, force: true });
  });

  it("each session gets its own workspace", async () => {
    const server = await mockProvider([textTurn("a"), textTurn("b")]);
    const one = createAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    const two = createAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    await one.prompt("x");
    await two.prompt("y");
    const dirOf = (i: number) =>
      /private workspace is (\S+?)\. /.exec(String(systemText(server.requests[i]!.body)))?.[1];
    expect(dirOf(0)).not.toBe(dirOf(1));
  });

  it("a write outside the workspace gets a structured permission_denied result and changes nothing", async () => {
    const outside = join(dir, "outside.txt");
    const server = await mockProvider([
      toolTurn({ name: "Write", input: { file_path: outside, content: "nope" } }),
      textTurn("I will write in my workspace instead."),
    ]);
    const agent = createAgent({ apiKey: "k", baseURL: server.url, model: "m" });
    await agent.prompt("Write outside.");
    const [result] = toolResults(server.requests[1]!.body);
    expect(result!.is_error).toBe(true);
    const denial = JSON.parse(result!.content);
    expect(denial).toMatchObject({ code: "permission_denied", tool: "Write", requestedPath: outside });
    expect(denial.allowedRoots).toHaveLength(1);
    expect(typeof denial.suggestedNextStep).toBe("string");
    expect(existsSync(outside)).toBe(false);
  });

  it("Read, LS, Glob and Grep read any path the process can read; /dev/null redirects are not writes", async () => {
    await writeFile(join(dir, "readme.txt"), "hello from outside\n");
    const server = await mockProvider([
      toolTurn([
        { name: "Read", input: { file_path: join(dir, "readme.txt") } },
        { name: "Grep", input: { pattern: "hello", path: dir } },
        { name: "Bash", input: { command: "echo quiet > /dev/null && echo done" } },
      ]),
      textTurn("ok"),
    ]);
    await createAgent({ apiKey: "k", baseURL: server.url, model: "m" }).prompt("Look around.");
    const [read, grep, bash] = toolResults(server.requests[1]!.body);
    expect(read!.content).toContain("hello from outside");
    expect(grep!.content).toContain("readme.txt");
    expect(bash!.is_error).toBeUndefined();
    expect(bash!.content).toContain("done");
  });

  it("the createBareAgent snippet: createBuiltinTools over the project directory with a permission callback", async () => {
    const server = await mockProvider([
      toolTurn([
        { name: "Read", input: { file_path: "package.json" } },
        { name: "Bash", input: { command: "touch created-by-bash" } },
        { name: "Write", input: { file_path: "x.txt", content: "x" } },
      ]),
      textTurn("Read only, as instructed."),
    ]);
    await writeFile(join(dir, "package.json"), '{ "name": "demo" }\n');

    const agent = createBareAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      systemPrompt: "Use the configured project directory for file work.",
      tools: createBuiltinTools({
        cwd: process.cwd(),
        allowedDirectories: [process.cwd()],
      }),
      permission: async request => {
        if (request.toolName === "Bash" || request.toolName === "Write" || request.toolName === "Edit") {
          return { behavior: "deny", message: "This host did not approve write or shell access." };
        }
        return { behavior: "allow" };
      },
    });
    const result = await agent.prompt("Inspect the project.");

    expect(result.result).toBe("Read only, as instructed.");
    expect(
      String(systemText(server.requests[0]!.body)).startsWith(
        "Use the configured project directory for file work.",
      ),
    ).toBe(true);
    const [read, bash, write] = toolResults(server.requests[1]!.body);
    expect(read!.content).toContain('"name": "demo"');
    expect(bash).toMatchObject({
      is_error: true,
      content: expect.stringContaining("did not approve write or shell access"),
    });
    expect(write).toMatchObject({ is_error: true });
    expect(existsSync(join(dir, "created-by-bash"))).toBe(false);
    expect(existsSync(join(dir, "x.txt"))).toBe(false);
  });

  it("workspace: false gives a bare agent, also through defineAgent()", async () => {
    const server = await mockProvider([textTurn("a"), textTurn("b")]);
    await createAgent({ apiKey: "k", baseURL: server.url, model: "m", workspace: false }).prompt("x");
    await defineAgent({ apiKey: "k", baseURL: server.url, model: "m", workspace: false }).spawn().prompt("y");
    for (const request of server.requests) {
      expect(request.body).not.toHaveProperty("tools");
      expect(request.body).not.toHaveProperty("system");
    }
    // …while a spec without it spawns sessions with the workspace.
    server.enqueue(textTurn("c"));
    await defineAgent({ apiKey: "k", baseURL: server.url, model: "m" }).spawn().prompt("z");
    expect(server.requests[2]!.body.tools.map((t: { name: string }) => t.name)).toEqual(BUILTIN);
  });
});

describe("spec: Skills (C21)", () => {
  it("skill() and loadSkill('./skills/pdf') are listed; a prompt naming one injects it in full", async () => {
    await mkdir(join(dir, "skills/pdf"), { recursive: true });
    await writeFile(
      join(dir, "skills/pdf/SKILL.md"),
      "---\nname: pdf\ndescription: Read and inspect PDF documents\n---\n\nRender pages before claiming layout is correct.\n",
    );
    const server = await mockProvider([textTurn("Bugs: none. Risks: none."), textTurn("Rendered.")]);

    const codeReview = skill({
      name: "code-review",
      description: "Review code changes and pull requests",
      instructions: "Always list bugs and risks before summaries.",
    });

    const pdf = await loadSkill("./skills/pdf");

    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      skills: [codeReview, pdf],
    });

    await agent.prompt("Please do a code review of this change.");
    await agent.prompt("Check the PDF layout.");

    const [review, layout] = server.requests.map(r => String(systemText(r.body)));
    for (const system of [review!, layout!]) {
      expect(system).toContain("- code-review: Review code changes and pull requests");
      expect(system).toContain("- pdf: Read and inspect PDF documents");
    }
    expect(review).toContain("## Active skill: code-review\nAlways list bugs and risks before summaries.");
    expect(review).not.toContain("Render pages before claiming layout is correct.");
    expect(layout).toContain("## Active skill: pdf\nRender pages before claiming layout is correct.");
    expect(server.requests[0]!.body.tools.map((t: { name: string }) => t.name)).toContain("load_skill");
  });
});
