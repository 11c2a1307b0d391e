/**
 * Workspace tools with a host in charge: a bare agent gets the built-in file and shell tools over one project
 * directory (`createBuiltinTools`), and a permission callback that allows observation (LS, Read, Glob, Grep) but
 * denies Bash, Write and Edit. The model lists the directory, reads a file, tries to write one and is told no.
 *
 *   pnpm --filter @agent-lattice/examples workspace-tools   offline, against the embedded mock server
 *   DEEPSEEK_API_KEY=… / ANTHROPIC_API_KEY=…                against a real provider
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createBareAgent, createBuiltinTools } from "agent-lattice";
import { textTurn, toolTurn } from "agent-lattice/testing";
import { resolveTeamProvider } from "./team-provider.js";

export async function runWorkspaceToolsExample(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const project = mkdtempSync(join(tmpdir(), "workspace-tools-"));
  writeFileSync(join(project, "TODO.md"), "- ship the SQLite mailbox\n- write the release note\n");
  const provider = await resolveTeamProvider((_role, request) => {
    const turns = (request.body.messages as Array<{ role: string }>).filter(
      message => message.role === "assistant",
    ).length;
    if (turns === 0) return toolTurn({ name: "LS", input: { path: project } });
    if (turns === 1) return toolTurn({ name: "Read", input: { file_path: join(project, "TODO.md") } });
    if (turns === 2)
      return toolTurn({
        name: "Write",
        input: { file_path: join(project, "DONE.md"), content: "- nothing\n" },
      });
    return textTurn("TODO.md lists two items; I was not allowed to write DONE.md.");
  }, env);
  write(`AgentLattice workspace tools example — provider: ${provider.label}\nproject: ${project}\n\n`);
  const agent = createBareAgent({
    apiKey: provider.apiKey,
    baseURL: provider.baseURL,
    model: provider.model,
    systemPrompt: `You are the project assistant. Use the configured project directory (${project}) for file work.`,
    tools: createBuiltinTools({ cwd: project, allowedDirectories: [project] }),
    permission: async request => {
      if (request.toolName === "Bash" || request.toolName === "Write" || request.toolName === "Edit") {
        return { behavior: "deny", message: "This host did not approve write or shell access." };
      }
      return { behavior: "allow" };
    },
    maxTurns: 6,
  });
  try {
    for await (const message of agent.query("Summarize TODO.md, then record what is done in DONE.md.", {
      stream: false,
    })) {
      if (message.type === "assistant") {
        for (const block of message.message.content)
          if (block.type === "tool_use") write(`[${block.name}] ${JSON.stringify(block.input)}\n`);
      } else if (message.type === "user") {
        for (const block of message.message.content)
          write(`  → ${String(block.content).trim().replaceAll(project, "<project>")}\n`);
      } else if (message.type === "result") {
        write(`[result: ${message.subtype}] ${message.result}\n`);
        write(`DONE.md exists: ${existsSync(join(project, "DONE.md"))}\n`);
        return message.subtype === "success" ? 0 : 1;
      }
    }
    return 1;
  } finally {
    await provider.close();
    rmSync(project, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runWorkspaceToolsExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
