// Benchmark (not a test): the built-in Grep and Glob tools against `grep -r` and `find` on the same tree of
// 20,000 files in a temp dir. The tools' handlers are called directly (no agent loop). Interleaved rounds after
// a warm-up, medians; prints JSON with each pair's ratio (ours / native; lower is better).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBuiltinTools } from "@agent-lattice/builtin-tools";
import { median } from "./mock-server.mjs";

const FILES = Number(process.env.FILES ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);

/** 20 top directories × 10 subdirectories × N files of ~20 lines; one file in 50 mentions the needle. */
function generateTree(root) {
  const perDir = Math.ceil(FILES / 200);
  const extensions = [".ts", ".js", ".md", ".json"];
  let made = 0;
  for (let top = 0; top < 20 && made < FILES; top++) {
    for (let sub = 0; sub < 10 && made < FILES; sub++) {
      const dir = join(root, `pkg${top}`, `mod${sub}`);
      mkdirSync(dir, { recursive: true });
      for (let file = 0; file < perDir && made < FILES; file++, made++) {
        const lines = Array.from(
          { length: 20 },
          (_, line) => `export const value_${made}_${line} = "${"lorem ipsum ".repeat(3)}";`,
        );
        if (made % 50 === 0) lines[10] = `// needle_${made} marks this file`;
        writeFileSync(
          join(dir, `file${file}${extensions[made % extensions.length]}`),
          `${lines.join("\n")}\n`,
        );
      }
    }
  }
  return made;
}

function time(fn) {
  const start = process.hrtime.bigint();
  return Promise.resolve(fn()).then(value => ({ ms: Number(process.hrtime.bigint() - start) / 1e6, value }));
}

const lineCount = text => text.split("\n").filter(line => line.startsWith("/")).length;

export async function runGrepGlob() {
  const root = mkdtempSync(join(tmpdir(), "bench-grep-glob-"));
  try {
    const files = generateTree(root);
    const tools = Object.fromEntries(
      createBuiltinTools({ cwd: root, bash: false }).map(tool => [tool.name, tool]),
    );
    const extra = {
      context: undefined,
      signal: new AbortController().signal,
      toolUseId: "bench",
      sessionId: "bench",
      permissions: {},
    };
    const cases = {
      "grep files_with_matches": {
        ours: () =>
          tools.Grep.handler({ pattern: "needle_[0-9]+", output_mode: "files_with_matches" }, extra).then(r =>
            lineCount(r.content),
          ),
        native: () =>
          execFileSync("grep", ["-rlE", "needle_[0-9]+", root], { encoding: "utf8" }).trim().split("\n")
            .length,
      },
      "grep content -n": {
        ours: () =>
          tools.Grep.handler({ pattern: "needle_[0-9]+", output_mode: "content" }, extra).then(r =>
            lineCount(r.content),
          ),
        native: () =>
          execFileSync("grep", ["-rnE", "needle_[0-9]+", root], { encoding: "utf8" }).trim().split("\n")
            .length,
      },
      "glob **/*.ts": {
        ours: () => tools.Glob.handler({ pattern: "**/*.ts" }, extra).then(r => lineCount(r.content)),
        native: () =>
          execFileSync("find", [root, "-type", "f", "-name", "*.ts"], { encoding: "utf8" }).trim().split("\n")
            .length,
      },
    };
    const results = {};
    for (const [name, pair] of Object.entries(cases)) {
      const ours = [];
      const native = [];
      let counts;
      for (let round = 0; round < ROUNDS + 1; round++) {
        const a = await time(pair.ours);
        const b = await time(pair.native);
        counts = { ours: a.value, native: b.value };
        if (round > 0) {
          ours.push(a.ms);
          native.push(b.ms);
        }
      }
      const oursMedian = median(ours);
      const nativeMedian = median(native);
      results[name] = {
        oursMedianMs: Math.round(oursMedian * 10) / 10,
        nativeMedianMs: Math.round(nativeMedian * 10) / 10,
        ratio: Math.round((oursMedian / nativeMedian) * 100) / 100,
        // Glob returns at most 1000 paths (with a note); the native count is the full match count.
        resultLines: counts,
      };
    }
    const report = {
      benchmark: "built-in Grep/Glob handlers vs grep -r / find on one tree",
      files,
      rounds: ROUNDS,
      native: { grep: "grep -rlE / grep -rnE", glob: "find -type f -name" },
      results,
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runGrepGlob();
