// publint and arethetypeswrong on the exact tarballs users would download, for every published package.
// arethetypeswrong runs with its "node16" profile: TypeScript's node10 resolution predates package.json
// "exports" and cannot see subpaths such as agent-lattice/testing; every Node version we support uses exports.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { describe, expect, inject, it } from "vitest";
import { publishedPackages } from "../src/tarballs.js";
import { explain, runCommand } from "../src/workspace.js";

const names = [...publishedPackages().keys()];
const attwBin = join(
  dirname(createRequire(import.meta.url).resolve("@arethetypeswrong/cli/package.json")),
  "dist/index.js",
);

describe.each(names)("%s tarball", name => {
  const tarball = () => inject("tarballs")[name] as string;

  it("ships no dead build output: every shared chunk is imported by another file of the package", async () => {
    const listed = await runCommand("tar", ["-tzf", tarball()], { cwd: dirname(tarball()) });
    expect(listed.code, explain(listed)).toBe(0);
    const files = listed.stdout.split("\n").filter(file => /^package\/dist\/.*\.js$/.test(file));
    const unpacked = await runCommand("tar", ["-xzOf", tarball(), ...files], { cwd: dirname(tarball()) });
    const chunks = files
      .map(file => file.split("/").at(-1) as string)
      .filter(file => file.startsWith("shared-"));
    for (const chunk of chunks)
      expect(unpacked.stdout, `${chunk} is imported by nothing`).toContain(`/${chunk}`);
  });

  it("ships no source maps: the unminified build reads as it stands, and maps would double the footprint", async () => {
    const listed = await runCommand("tar", ["-tzf", tarball()], { cwd: dirname(tarball()) });
    expect(listed.code, explain(listed)).toBe(0);
    expect(listed.stdout.split("\n").filter(file => file.endsWith(".map"))).toEqual([]);
  });

  it("publint: no errors, warnings or suggestions", async () => {
    const data = readFileSync(tarball());
    const { messages, pkg } = await publint({
      pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer },
      strict: true,
      level: "suggestion",
    });
    expect(messages.map(message => `${message.type}: ${formatMessage(message, pkg)}`)).toEqual([]);
  });

  it("arethetypeswrong: import and require resolve to JavaScript and types of the right format", async () => {
    const result = await runCommand(
      process.execPath,
      [attwBin, tarball(), "--profile", "node16", "--no-color"],
      {
        cwd: dirname(tarball()),
      },
    );
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout, result.stdout).not.toMatch(/dynamic import only|Masquerading/);
  });
});
