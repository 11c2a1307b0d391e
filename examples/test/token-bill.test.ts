import { describe, expect, it } from "vitest";
import { runTokenBill } from "../src/token-bill.js";

describe("token-bill example (offline)", () => {
  it("prints each request's input, cache writes and cache reads; caching on bills a fraction of off", async () => {
    const lines: string[] = [];
    const { on, off } = await runTokenBill(text => lines.push(text), {});
    const output = lines.join("");
    expect(output).toContain("Prompt caching on (the default), offline simulation:");
    expect(output.match(/request {1,2}\d+: input/g)).toHaveLength(14); // 7 requests, on and off
    // From the second request on, the previous prefix is read back.
    expect(lines[2]).toMatch(/cache read +[1-9]\d*\n$/);
    expect(off).toBeGreaterThan(0);
    expect(on / off!).toBeLessThan(0.5);
  });
});
