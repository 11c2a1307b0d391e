import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { InvalidOptionError } from "./errors.js";
import { assertKnownOptions } from "./option-validation.js";
import { toToolInputSchema } from "./schema.js";
import type { ToolDefinition } from "./tool.js";

/** A reusable instruction bundle. */
export interface Skill {
  readonly name: string;
  /** One line the model reads to decide whether the skill applies. */
  readonly description: string;
  /** The full instructions, injected into the model request when the skill matches. */
  readonly instructions: string;
  /** Extra words or phrases that select the skill when a prompt mentions them (its name always does). */
  readonly triggers: readonly string[];
  /** Where it was loaded from (loadSkill only). */
  readonly path?: string;
}

export interface SkillDefinition {
  name: string;
  description: string;
  instructions: string;
  triggers?: string[];
}

const SKILL_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export function skill(definition: SkillDefinition): Skill {
  assertKnownOptions(definition, new Set(["name", "description", "instructions", "triggers"]), "skill()");
  const { name, description, instructions, triggers = [] } = definition ?? ({} as SkillDefinition);
  if (typeof name !== "string" || !SKILL_NAME.test(name)) {
    throw new InvalidOptionError(
      `skill(): invalid name ${JSON.stringify(name)}. Use letters, digits, ".", "_" or "-" (e.g. "code-review").`,
    );
  }
  for (const [key, value] of [
    ["description", description],
    ["instructions", instructions],
  ] as const) {
    if (typeof value !== "string" || value.trim() === "") {
      throw new InvalidOptionError(`skill("${name}"): "${key}" must be a non-empty string.`);
    }
  }
  if (
    !Array.isArray(triggers) ||
    triggers.some(trigger => typeof trigger !== "string" || trigger.trim() === "")
  ) {
    throw new InvalidOptionError(`skill("${name}"): "triggers" must be an array of non-empty strings.`);
  }
  return Object.freeze({
    name,
    description: description.trim(),
    instructions: instructions.trim(),
    triggers: Object.freeze([...triggers]),
  });
}

/**
 * Reads `<dir>/SKILL.md`: YAML front matter with `name` and `description` (and optional `triggers`), then the
 * instructions as Markdown. The YAML parser is loaded on first use.
 */
export async function loadSkill(dir: string): Promise<Skill> {
  const path = join(resolve(dir), "SKILL.md");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidOptionError(
      code === "ENOENT"
        ? `loadSkill(): no SKILL.md in ${resolve(dir)}. A skill directory needs a SKILL.md file with front matter (name, description) and instructions.`
        : `loadSkill(): cannot read ${path}: ${(error as Error).message}`,
    );
  }
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) {
    throw new InvalidOptionError(
      `loadSkill(): ${path} must start with YAML front matter between "---" lines, e.g.\n---\nname: pdf\ndescription: Read and inspect PDF documents\n---`,
    );
  }
  const { parse } = await import("yaml");
  let frontMatter: unknown;
  try {
    frontMatter = parse(match[1]!);
  } catch (error) {
    throw new InvalidOptionError(
      `loadSkill(): the front matter of ${path} is not valid YAML: ${(error as Error).message}`,
    );
  }
  if (!frontMatter || typeof frontMatter !== "object" || Array.isArray(frontMatter)) {
    throw new InvalidOptionError(
      `loadSkill(): the front matter of ${path} must be a mapping with name and description.`,
    );
  }
  const fields = frontMatter as Record<string, unknown>;
  for (const key of ["name", "description"]) {
    if (typeof fields[key] !== "string" || (fields[key] as string).trim() === "") {
      throw new InvalidOptionError(`loadSkill(): ${path} front matter needs a non-empty "${key}".`);
    }
  }
  const triggers = fields.triggers === undefined ? [] : fields.triggers;
  const loaded = skill({
    name: fields.name as string,
    description: fields.description as string,
    instructions: match[2]!.trim() || (fields.description as string),
    triggers: triggers as string[],
  });
  return Object.freeze({ ...loaded, path });
}

export function assertSkills(skills: unknown): void {
  if (skills === undefined) return;
  if (!Array.isArray(skills) || skills.some(entry => !entry || typeof entry.instructions !== "string")) {
    throw new InvalidOptionError(
      "AgentOptions.skills must be an array of skills made with skill() or loadSkill().",
    );
  }
  const names = new Set<string>();
  for (const entry of skills as Skill[]) {
    if (names.has(entry.name))
      throw new InvalidOptionError(`AgentOptions.skills: two skills are named "${entry.name}".`);
    names.add(entry.name);
  }
}

/**
 * Which skills a prompt selects: a skill matches when the prompt mentions its name (case-insensitive; "-", "_"
 * and "." also match spaces) or one of its triggers, as whole words.
 */
export function matchSkills(skills: readonly Skill[], promptText: string): Skill[] {
  const text = ` ${normalize(promptText)} `;
  return skills.filter(entry =>
    [entry.name, ...entry.triggers].some(term => text.includes(` ${normalize(term)} `)),
  );
}

function normalize(value: string): string {
  return value
    .toLowerCase()
    .replace(/[-_.]+/g, " ")
    .replace(/[^\p{L}\p{N} ]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The system-prompt section: every skill is listed so the model knows it exists (it can load one with the
 * load_skill tool); matched skills are included in full.
 */
export function skillsSection(skills: readonly Skill[], matched: readonly Skill[]): string | undefined {
  if (!skills.length) return undefined;
  const listing = skills.map(entry => `- ${entry.name}: ${entry.description}`).join("\n");
  const lines = [
    "# Skills",
    "Reusable instructions available to you. Skills marked active below apply to this task; load any other listed " +
      `skill with the ${LOAD_SKILL_TOOL_NAME} tool when its description fits the work.`,
    listing,
  ];
  for (const entry of matched) lines.push(`## Active skill: ${entry.name}\n${entry.instructions}`);
  return lines.join("\n\n");
}

export const LOAD_SKILL_TOOL_NAME = "load_skill";

/** The tool that lets the model read a listed skill's full instructions on demand. */
export function createLoadSkillTool(skills: readonly Skill[]): ToolDefinition {
  const byName = new Map(skills.map(entry => [entry.name, entry]));
  const names = [...byName.keys()];
  const schema = {
    jsonSchema: {
      type: "object",
      properties: { name: { type: "string", enum: names, description: "The skill to load." } },
      required: ["name"],
    },
    parse(input: unknown): { name: string } {
      const name = (input as { name?: unknown } | null)?.name;
      if (typeof name !== "string" || !byName.has(name)) {
        throw new Error(`name must be one of: ${names.join(", ")}`);
      }
      return { name };
    },
  };
  return Object.freeze({
    kind: "tool",
    name: LOAD_SKILL_TOOL_NAME,
    description: "Load the full instructions of one of the listed skills.",
    inputSchema: toToolInputSchema(schema, "load_skill"),
    schema,
    isConcurrencySafe: () => true,
    handler: ({ name }: { name: string }) => ({ content: byName.get(name)!.instructions }),
  });
}
