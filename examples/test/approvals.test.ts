import { mkdtempSync, readdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPaymentsService, runApprovalsExample } from "../src/approvals.js";

describe("approvals example (offline)", () => {
  it("the first request ends awaiting approval with nothing sent; the second, from a fresh agent, resumes and sends", async () => {
    const lines: string[] = [];
    expect(await runApprovalsExample(text => lines.push(text))).toBe(0);
    const output = lines.join("");
    expect(output).toMatch(
      /POST \/chat {4}→ \{"status":"awaiting_approval","pending":\[\{"toolUseId":"[^"]+","toolName":"transfer","input":\{"to":"Ada","amount":250\},"reason":".+","digest":"[0-9a-f]{64}"\}/,
    );
    expect(output).toContain("ledger after /chat: []");
    expect(output).toContain('POST /approve → {"status":"success","answer":"Done: Sent 250 EUR to Ada."}');
    expect(output).toContain('ledger after /approve: ["250 to Ada"]');
  });

  it("validates request bodies before anything runs: a session id that is a path, an approval without its digest", async () => {
    const root = mkdtempSync(join(tmpdir(), "payments-validate-"));
    const sessions = join(root, "sessions");
    const ledger: string[] = [];
    // The model is never reached: an unroutable address would fail the test if it were.
    const service = createPaymentsService(
      { apiKey: "k", baseURL: "http://127.0.0.1:9", model: "m" },
      sessions,
      ledger,
    );
    await new Promise<void>(resolve => service.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as { error: string } };
    };
    try {
      const traversal = await post("/chat", { session: "../escaped", message: "hi" });
      expect(traversal.status).toBe(400);
      expect(traversal.body.error).toContain("session id");
      const undigested = await post("/approve", {
        session: "ada-1",
        pending: { toolUseId: "toolu_1" },
        approve: true,
        by: "alice",
      });
      expect(undigested.status).toBe(400);
      expect(undigested.body.error).toContain("digest");
      expect(readdirSync(root)).toEqual([]); // no session file, inside or outside the sessions directory
      expect(ledger).toEqual([]);
    } finally {
      await new Promise(resolve => service.close(resolve));
    }
  });
});
