import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { codeBlocks } from "./markdown.js";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

describe("docs/testing.md shows a test file that runs", () => {
  it("its TypeScript block is examples/test/offline-agent.test.ts, verbatim (which CI runs)", () => {
    expect(
      codeBlocks(read("../../docs/testing.md"), "ts")[0],
      "copy offline-agent.test.ts into docs/testing.md",
    ).toBe(read("./offline-agent.test.ts"));
  });
});
