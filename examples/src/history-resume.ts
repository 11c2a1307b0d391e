/**
 * Persistent history and resume: a JSONL history store mirrors every message of a conversation to a file; a new
 * Agent over the same file — in this process here, in another process or after a restart in real life — loads it
 * lazily before its first query and continues the conversation.
 *
 *   pnpm --filter @agent-lattice/examples history-resume   offline, against the embedded mock server
 *   HISTORY_FILE=.agent-sessions/ada.jsonl …               keep the file (run twice: the second run remembers)
 *   DEEPSEEK_API_KEY=… / ANTHROPIC_API_KEY=…               against a real provider
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createBareAgent, createJsonlHistoryStore } from "agent-lattice";
import { textTurn } from "agent-lattice/testing";
import { resolveTeamProvider } from "./team-provider.js";

export async function runHistoryResumeExample(
  write: (text: string) => void = text => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const provider = await resolveTeamProvider((_role, request) => {
    const said = JSON.stringify(request.body.messages);
    if (/What is my name/.test(said))
      return textTurn(
        said.includes("My name is Ada") ? "Your name is Ada." : "You have not told me your name.",
      );
    return textTurn("Nice to meet you, Ada.");
  }, env);
  const scratch = env.HISTORY_FILE ? undefined : mkdtempSync(join(tmpdir(), "history-resume-"));
  const path = env.HISTORY_FILE ?? join(scratch as string, "ada.jsonl");
  write(`AgentLattice history resume example — provider: ${provider.label}\nhistory: ${path}\n\n`);
  // One Agent per conversation lifetime; each gets its own store object over the same file.
  const agentOver = (file: string) =>
    createBareAgent({
      apiKey: provider.apiKey,
      baseURL: provider.baseURL,
      model: provider.model,
      systemPrompt: "You are the assistant. Remember what the user tells you.",
      historyStore: createJsonlHistoryStore({ path: file }),
    });
  try {
    const first = agentOver(path);
    const hello = await first.prompt("My name is Ada.", { stream: false });
    write(`[first agent] > My name is Ada.\n  ${hello.result}\n`);
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean).length;
    write(`[file] ${lines} messages written\n`);

    const resumed = agentOver(path); // as a new process would: nothing shared but the file
    const answer = await resumed.prompt("What is my name?", { stream: false });
    write(`[resumed agent] > What is my name?\n  ${answer.result}\n`);
    const transcript = await resumed.getHistory();
    write(
      `[resumed agent] history: ${transcript.length} messages (${transcript.map(m => m.role).join(", ")})\n`,
    );
    return hello.subtype === "success" && answer.subtype === "success" ? 0 : 1;
  } finally {
    await provider.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runHistoryResumeExample().then(
    code => {
      process.exitCode = code;
    },
    error => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
