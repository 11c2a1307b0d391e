// Install check 1 (U1): `npm install agent-lattice zod` from the packed tarballs, in a directory outside the
// workspace, with the lowest and the highest zod of the peer range; then the README's headline program runs
// against the mock server (a scripted model: the demo's), as an ES module and through require().
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOfflineModel } from "../../examples/src/offline-model.js";
import { asCommonJs, asEsm, readmeHeadline } from "../src/headline.js";
import { createNpmProject, type NpmProject, rangeEnds } from "../src/npm-project.js";
import { publishedPackages, tarballsFor } from "../src/tarballs.js";
import { explain, type RunResult } from "../src/workspace.js";

const zodRange = publishedPackages().get("agent-lattice")?.peerDependencies.zod as string;
const zodVersions = await rangeEnds("zod", zodRange);

/** What the headline program prints when the scripted model plays it (see examples/src/offline-model.ts). */
function expectHeadlineRan(run: RunResult) {
  const output = run.stdout;
  expect(run.code, explain(run)).toBe(0);
  expect(output).toContain('[multiply] {"a":1234,"b":5678}');
  expect(output).toContain("  → 7006652");
  expect(output).toMatch(/\[Write\] .*\n {2}→ Created answer\.txt \(\/.*\/answer\.txt\)/);
  expect(output).toMatch(
    /\[Bash\] \{"command":"cat answer.txt"\}\n {2}→ Exit code: 0\s+<stdout>\s+1234 × 5678 = 7006652/,
  );
  expect(output).toContain(
    '1234 × 5678 = 7006652. answer.txt in my workspace reads: "1234 × 5678 = 7006652"',
  );
  expect(output).toMatch(/\nsuccess: 4 model turns, \d+ tokens out\n/);
}

describe.each(zodVersions)("npm install agent-lattice zod@%s", zodVersion => {
  let project: NpmProject;
  let model: Awaited<ReturnType<typeof startOfflineModel>>;
  const env = () => ({
    DEEPSEEK_API_KEY: "offline-key",
    DEEPSEEK_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "",
  });

  beforeAll(async () => {
    project = await createNpmProject([...tarballsFor(["agent-lattice"]), `zod@${zodVersion}`]);
    model = await startOfflineModel({ chunkDelayMs: 0 });
  });
  afterAll(async () => {
    await model?.close();
    project?.remove();
  });

  it("installs real copies (no workspace links) with that zod", async () => {
    for (const name of ["agent-lattice", "@agent-lattice/core", "@agent-lattice/builtin-tools"]) {
      expect(project.installedPath(name).startsWith(project.dir), name).toBe(true);
    }
    const zod = await project.node(["-p", 'require("zod/package.json").version']);
    expect(zod.stdout.trim()).toBe(zodVersion);
  });

  it("the README's headline program runs as an ES module", async () => {
    project.write("headline.mjs", asEsm(readmeHeadline()));
    expectHeadlineRan(await project.node(["headline.mjs"], env()));
  });

  it("the README's headline program runs through require()", async () => {
    project.write("headline.cjs", asCommonJs(readmeHeadline()));
    expectHeadlineRan(await project.node(["headline.cjs"], env()));
  });

  it("require() and import give the same module, for the root and agent-lattice/testing", async () => {
    project.write(
      "same-module.mjs",
      `import { createRequire } from "node:module";
       import * as root from "agent-lattice";
       import * as testing from "agent-lattice/testing";
       const require = createRequire(import.meta.url);
       const same = (a, b) => Object.keys(a).length > 0 && Object.keys(a).every(key => a[key] === b[key]);
       console.log(JSON.stringify({
         root: same(root, require("agent-lattice")),
         testing: same(testing, require("agent-lattice/testing")),
         kitAtRoot: "startMockAnthropicServer" in root,
         rootNames: Object.keys(root).length,
       }));`,
    );
    const run = await project.node(["same-module.mjs"]);
    expect(run.code, explain(run)).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ root: true, testing: true, kitAtRoot: false });
    expect(JSON.parse(run.stdout).rootNames).toBeGreaterThan(40);
  });
});
