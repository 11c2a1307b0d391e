import { describe, expect, it } from "vitest";
import { runApprovalsExample } from "../src/approvals.js";

describe("approvals example (offline)", () => {
  it("the first request ends awaiting approval with nothing sent; the second, from a fresh agent, resumes and sends", async () => {
    const lines: string[] = [];
    expect(await runApprovalsExample(text => lines.push(text))).toBe(0);
    const output = lines.join("");
    expect(output).toMatch(
      /POST \/chat {4}→ \{"status":"awaiting_approval","pending":\[\{"toolUseId":"[^"]+","toolName":"transfer","input":\{"to":"Ada","amount":250\}/,
    );
    expect(output).toContain("ledger after /chat: []");
    expect(output).toContain('POST /approve → {"status":"success","answer":"Done: Sent 250 EUR to Ada."}');
    expect(output).toContain('ledger after /approve: ["250 to Ada"]');
  });
});
