import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { codeBlocks } from "./markdown.js";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

describe("the README's headline program is the demo's", () => {
  it("the first TypeScript block of README.md is examples/src/headline.ts, verbatim", () => {
    const headline = codeBlocks(read("../../README.md"), "ts")[0];
    expect(headline, "copy examples/src/headline.ts into the README's first ```ts block").toBe(
      read("../src/headline.ts"),
    );
  });
});
