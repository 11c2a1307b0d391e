import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModelClient, systemText, textTurn, toolTurn } from "@agent-lattice/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBareAgent, InvalidOptionError, LOAD_SKILL_TOOL_NAME, loadSkill, skill } from "../src/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "al-skills-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function skillDir(name: string, content: string) {
  const path = join(dir, name);
  await mkdir(path, { recursive: true });
  await writeFile(join(path, "SKILL.md"), content);
  return path;
}

const codeReview = skill({
  name: "code-review",
  description: "Review code changes and pull requests",
  instructions: "Always list bugs and risks before summaries.",
  triggers: ["pull request", "PR"],
});

describe("skill() and loadSkill() (C21)", () => {
  it("loadSkill reads SKILL.md front matter and instructions", async () => {
    const path = await skillDir(
      "pdf",
      "---\nname: pdf\ndescription: Read and inspect PDF documents\n---\n\nRender pages before claiming layout is correct.\n",
    );
    const pdf = await loadSkill(path);
    expect(pdf).toMatchObject({
      name: "pdf",
      description: "Read and inspect PDF documents",
      instructions: "Render pages before claiming layout is correct.",
      triggers: [],
      path: join(path, "SKILL.md"),
    });
  });

  it("reads triggers from front matter, with CRLF line endings", async () => {
    const path = await skillDir(
      "sql",
      "---\r\nname: sql\r\ndescription: Write SQL\r\ntriggers: [query, database]\r\n---\r\nUse CTEs.\r\n",
    );
    expect(await loadSkill(path)).toMatchObject({
      name: "sql",
      triggers: ["query", "database"],
      instructions: "Use CTEs.",
    });
  });

  it("fails clearly on a missing SKILL.md, missing front matter, invalid YAML, or missing fields", async () => {
    await expect(loadSkill(join(dir, "nope"))).rejects.toThrow(/no SKILL\.md in .*nope/);
    await expect(loadSkill(await skillDir("a", "just text"))).rejects.toThrow(
      /must start with YAML front matter/,
    );
    await expect(loadSkill(await skillDir("b", "---\nname: [unclosed\n---\nx"))).rejects.toThrow(
      /not valid YAML/,
    );
    await expect(loadSkill(await skillDir("c", "---\nname: c\n---\nx"))).rejects.toThrow(
      /needs a non-empty "description"/,
    );
    await expect(loadSkill(await skillDir("d", "---\n- a\n---\nx"))).rejects.toThrow(/must be a mapping/);
  });

  it("skill() validates its definition strictly", () => {
    expect(() => skill({ name: "x y", description: "d", instructions: "i" })).toThrow(/invalid name/);
    expect(() => skill({ name: "x", description: "", instructions: "i" })).toThrow(
      /"description" must be a non-empty string/,
    );
    expect(() => skill({ name: "x", description: "d", instructions: "i", extra: 1 } as never)).toThrow(
      'skill(): unknown option "extra"',
    );
  });

  it("duplicate skill names throw at assembly", () => {
    expect(() =>
      createBareAgent({
        model: "m",
        modelClient: createScriptedModelClient(),
        skills: [codeReview, codeReview],
      }),
    ).toThrow(InvalidOptionError);
  });
});

describe("skill injection", () => {
  it("lists every skill, injects the matching ones in full, and offers load_skill", async () => {
    const pdf = skill({
      name: "pdf",
      description: "Read and inspect PDF documents",
      instructions: "Render pages first.",
    });
    const client = createScriptedModelClient({ script: [textTurn("ok"), textTurn("ok")] });
    const agent = createBareAgent({
      model: "m",
      modelClient: client,
      systemPrompt: "Base.",
      skills: [codeReview, pdf],
    });

    await agent.prompt("Please do a code review of this diff.");
    const system = String(systemText(client.requests[0]));
    expect(system.startsWith("Base.")).toBe(true);
    expect(system).toContain("\n\n# Skills\n");
    expect(system).toContain("- code-review: Review code changes and pull requests");
    expect(system).toContain("- pdf: Read and inspect PDF documents");
    expect(system).toContain("## Active skill: code-review\nAlways list bugs and risks before summaries.");
    expect(system).not.toContain("Render pages first.");
    expect(client.requests[0]!.tools.map(t => t.name)).toEqual([LOAD_SKILL_TOOL_NAME]);

    await agent.prompt("Summarize the PR please");
    expect(systemText(client.requests[1])).toContain("## Active skill: code-review");
  });

  it("matches whole words only and nothing when the prompt does not mention a skill", async () => {
    const client = createScriptedModelClient({ script: [textTurn("ok")] });
    await createBareAgent({ model: "m", modelClient: client, skills: [codeReview] }).prompt(
      "Improve the SPRINT plan.",
    );
    expect(String(systemText(client.requests[0]))).not.toContain("## Active skill");
  });

  it("load_skill returns a skill's instructions; an unknown name is an error result", async () => {
    const client = createScriptedModelClient({
      script: [
        toolTurn([
          { name: "load_skill", input: { name: "code-review" } },
          { name: "load_skill", input: { name: "nope" } },
        ]),
        textTurn("done"),
      ],
    });
    await createBareAgent({ model: "m", modelClient: client, skills: [codeReview] }).prompt("Look at this.");
    const results = client.requests[1]!.messages.at(-1)!.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    expect(results[0]).toMatchObject({ content: "Always list bugs and risks before summaries." });
    expect(results[1]).toMatchObject({ is_error: true });
    expect(results[1]!.content).toContain("name must be one of: code-review");
    expect(client.requests[0]!.tools[0]!.input_schema).toEqual({
      type: "object",
      properties: { name: { type: "string", enum: ["code-review"], description: "The skill to load." } },
      required: ["name"],
    });
  });

  it("no skills: no section and no tool", async () => {
    const client = createScriptedModelClient({ script: [textTurn("ok")] });
    await createBareAgent({ model: "m", modelClient: client }).prompt("code review");
    expect(client.requests[0]!.system).toBeUndefined();
    expect(client.requests[0]!.tools).toEqual([]);
  });
});
