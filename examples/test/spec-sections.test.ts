// One runnable example per spec section (the root README's sections), each run offline against the mock server:
// what it prints is what a user sees, so a broken example fails CI.
import { describe, expect, it } from "vitest";
import { runCustomToolExample } from "../src/custom-tool.js";
import { runDelegationExample } from "../src/delegation.js";
import { runHistoryResumeExample } from "../src/history-resume.js";
import { runStreamingRenderExample } from "../src/streaming-render.js";
import { runStructuredOutputExample } from "../src/structured-output.js";
import { runWorkspaceToolsExample } from "../src/workspace-tools.js";

/** Runs an example with no provider key (so against the mock server) and returns its exit code and output. */
async function offline(
  run: (write: (text: string) => void, env: NodeJS.ProcessEnv) => Promise<number>,
): Promise<{ code: number; output: string }> {
  const chunks: string[] = [];
  const code = await run(text => chunks.push(text), {});
  return { code, output: chunks.join("") };
}

describe("spec section examples (offline)", () => {
  it("streaming render: text deltas are written as they arrive, then the result", async () => {
    const { code, output } = await offline(runStreamingRenderExample);
    expect(code).toBe(0);
    expect(output).toContain(
      "Streaming shows the first words within a fraction of a second, so people see progress at once. " +
        "It also lets the host stop early when the answer is going the wrong way.",
    );
    const deltas = Number(/\[result: success\] (\d+) text deltas rendered as they arrived/.exec(output)?.[1]);
    expect(deltas).toBeGreaterThan(5);
  });

  it("custom tool: the calculator runs on the model's input and the model answers from its result", async () => {
    const { code, output } = await offline(runCustomToolExample);
    expect(code).toBe(0);
    expect(output).toContain('[calculator] {"expr":"2+2"}\n  → 4\n');
    expect(output).toContain("[result: success] 2 + 2 = 4.");
  });

  it("structured output: outputFormat sends the JSON Schema; outputSchema gives a validated structuredResult", async () => {
    const { code, output } = await offline(runStructuredOutputExample);
    expect(code).toBe(0);
    expect(output).toContain('outputFormat → text {"answer":4} → answer 4 (number)');
    expect(output).toContain("outputSchema → 0.2.0: teams, SQLite mailbox; breaking: false");
  });

  it("history resume: a new agent over the same JSONL file continues the conversation", async () => {
    const { code, output } = await offline(runHistoryResumeExample);
    expect(code).toBe(0);
    expect(output).toContain("[first agent] > My name is Ada.\n  Nice to meet you, Ada.");
    expect(output).toContain("[file] 2 messages written");
    expect(output).toContain("[resumed agent] > What is my name?\n  Your name is Ada.");
    expect(output).toContain("[resumed agent] history: 4 messages (user, assistant, user, assistant)");
  });

  it("delegation: typed input to the reviewer, its validated verdict back as JSON", async () => {
    const { code, output } = await offline(runDelegationExample);
    expect(code).toBe(0);
    expect(output).toMatch(/\[lead → review\] \{"change":"Rename getUser\(\).*","risk":"low"\}/);
    expect(output).toContain('← {"verdict":"approve","reasons":["pure rename","all callers updated"]}');
    expect(output).toContain("[result: success] The reviewer says: approve. Merging.");
  });

  it("workspace tools: LS and Read run in the project directory; the permission callback denies Write", async () => {
    const { code, output } = await offline(runWorkspaceToolsExample);
    expect(code).toBe(0);
    expect(output).toContain("  → <project>/\n  TODO.md\n");
    expect(output).toContain("  → 1\t- ship the SQLite mailbox\n     2\t- write the release note");
    expect(output).toMatch(
      /\[Write\] .*\n {2}→ Permission denied for tool "Write": This host did not approve write or shell access\./,
    );
    expect(output).toContain(
      "[result: success] TODO.md lists two items; I was not allowed to write DONE.md.",
    );
    expect(output).toContain("DONE.md exists: false");
  });
});
