import { afterEach, describe, expect, it, vi } from "vitest";
import { runDemo } from "../src/demo.js";

const saved = { key: process.env.DEEPSEEK_API_KEY, url: process.env.DEEPSEEK_BASE_URL };
afterEach(() => {
  vi.restoreAllMocks();
  for (const [name, value] of [
    ["DEEPSEEK_API_KEY", saved.key],
    ["DEEPSEEK_BASE_URL", saved.url],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("pnpm demo (offline): the README's headline program against the mock server", () => {
  it("streams the answer while the model uses multiply, then the built-in Write and Bash in its private workspace", async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation(chunk => {
      out.push(String(chunk));
      return true;
    });
    vi.spyOn(console, "log").mockImplementation((...args) => void out.push(`${args.join(" ")}\n`));
    delete process.env.DEEPSEEK_API_KEY;
    await runDemo();
    const output = out.join("");

    expect(output).toContain("(offline: a scripted model at http://127.0.0.1:");
    expect(output).toContain('[multiply] {"a":1234,"b":5678}');
    expect(output).toContain("  → 7006652");
    expect(output).toContain('[Write] {"file_path":"answer.txt","content":"1234 × 5678 = 7006652"}');
    // The Write tool really wrote into the session's private workspace...
    const written = /→ Created answer\.txt \((\/[^)]+\/answer\.txt)\)/.exec(output);
    expect(written, output).not.toBeNull();
    expect(written?.[1]).toMatch(/agent-lattice(-\d+)?\/workspaces\/[^/]+\/answer\.txt$/);
    // ...and Bash, running in that workspace, read it back.
    expect(output).toContain('[Bash] {"command":"cat answer.txt"}');
    expect(output).toMatch(/→ Exit code: 0\s+<stdout>\s+1234 × 5678 = 7006652/);
    expect(output).toContain(
      '1234 × 5678 = 7006652. answer.txt in my workspace reads: "1234 × 5678 = 7006652"',
    );
    expect(output).toMatch(/\nsuccess: 4 model turns, \d+ tokens out\n/);
    // Streamed: the final answer arrived as several text deltas, not one write.
    const answer = '1234 × 5678 = 7006652. answer.txt in my workspace reads: "1234 × 5678 = 7006652"';
    expect(
      out.filter(chunk => chunk.length < answer.length && answer.includes(chunk)).length,
    ).toBeGreaterThan(3);
  });
});
