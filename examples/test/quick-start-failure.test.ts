import { startMockAnthropicServer, unauthorized } from "agent-lattice/testing";
import { afterEach, describe, expect, it, vi } from "vitest";

const saved = {
  key: process.env.DEEPSEEK_API_KEY,
  url: process.env.DEEPSEEK_BASE_URL,
  exitCode: process.exitCode,
};
afterEach(() => {
  vi.restoreAllMocks();
  for (const [name, value] of [
    ["DEEPSEEK_API_KEY", saved.key],
    ["DEEPSEEK_BASE_URL", saved.url],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  process.exitCode = saved.exitCode;
});

describe("the README's quick start, when the provider refuses the key", () => {
  it("prints why the run failed (a 401 names the key), not just the subtype, and exits non-zero", async () => {
    const server = await startMockAnthropicServer({ script: [unauthorized()] });
    const out: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation(chunk => {
      out.push(String(chunk));
      return true;
    });
    vi.spyOn(console, "log").mockImplementation((...args) => void out.push(`${args.join(" ")}\n`));
    try {
      process.env.DEEPSEEK_API_KEY = "sk-wrong";
      process.env.DEEPSEEK_BASE_URL = server.url;
      await import("../src/headline.js"); // the program, verbatim (readme-headline.test.ts keeps them equal)
    } finally {
      await server.close();
    }
    const output = out.join("");
    expect(output).toMatch(
      /\nerror_during_execution: The model provider answered 401 \(authentication_error\): invalid x-api-key\. Check the API key/,
    );
    expect(process.exitCode).toBe(1);
  });
});
