import { describe, expect, it } from "vitest";
import { runDemo } from "../src/demo.js";

describe("pnpm demo (offline)", () => {
  it("streams the answer, shows the tool call and its result, and names the serving model", async () => {
    for (const key of ["DEEPSEEK_API_KEY", "ANTHROPIC_API_KEY", "AGENT_LATTICE_MODEL"])
      delete process.env[key];
    const chunks: string[] = [];
    const code = await runDemo(text => chunks.push(text));
    const output = chunks.join("");
    expect(code).toBe(0);
    expect(output).toContain("provider: offline mock server");
    expect(output).toContain('[tool call] calculator({"a":1234,"op":"*","b":5678})');
    expect(output).toContain("[tool result] 7006652");
    expect(output).toContain("1234 × 5678 = 7006652, computed by the calculator tool.");
    expect(output).toContain("[served by model: mock-claude (offline)]");
    expect(output).toContain("[result: success · 2 model turns");
    // Streamed: the answer arrived in several text deltas, not one write.
    expect(
      chunks.filter(chunk => "1234 × 5678 = 7006652, computed by the calculator tool.".includes(chunk))
        .length,
    ).toBeGreaterThan(3);
  });
});
