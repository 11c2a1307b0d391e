// Benchmark (not a test): what the enforced write boundary costs per tool call. Handlers are called directly (no
// agent loop), in interleaved rounds after a warm-up; prints medians, interquartile ranges and paired ratios.
// - Bash `true` in the bubblewrap sandbox vs without it (the analyser alone): the price of the OS sandbox.
// - Write through core's descriptor-checked open vs a plain fs.writeFileSync of the same bytes.
// - Grep: the first call (starts the regex worker) vs later calls.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBuiltinTools } from "@agent-lattice/builtin-tools";

const ROUNDS = Number(process.env.ROUNDS ?? 40);

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low);
};
const twoDecimals = value => Math.round(value * 100) / 100;
const summary = values => ({
  median: twoDecimals(quantile(values, 0.5)),
  iqr: [twoDecimals(quantile(values, 0.25)), twoDecimals(quantile(values, 0.75))],
});

async function time(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const extra = {
  context: undefined,
  signal: new AbortController().signal,
  toolUseId: "bench",
  sessionId: "bench",
  permissions: {},
};

/**
 * Paired rounds of two functions, the order alternating: medians and IQRs in ms, and the median of the per-round
 * ratios a/b with its IQR (the spread that says whether the difference is outside the noise).
 */
async function paired(a, b) {
  const timesA = [];
  const timesB = [];
  const ratios = [];
  for (let index = 0; index < ROUNDS + 3; index++) {
    let x;
    let y;
    if (index % 2 === 0) {
      x = await time(a);
      y = await time(b);
    } else {
      y = await time(b);
      x = await time(a);
    }
    if (index < 3) continue; // warm-up
    timesA.push(x);
    timesB.push(y);
    ratios.push(x / y);
  }
  return { a: summary(timesA), b: summary(timesB), ratio: summary(ratios) };
}

export async function runWriteBoundary() {
  const dir = mkdtempSync(join(tmpdir(), "bench-boundary-"));
  try {
    const tools = sandbox =>
      Object.fromEntries(createBuiltinTools({ cwd: dir, bash: { sandbox } }).map(tool => [tool.name, tool]));
    const sandboxed = tools(true);
    const plain = tools(false);
    const report = { benchmark: "cost of the enforced write boundary per tool call", rounds: ROUNDS };
    try {
      await sandboxed.Bash.handler({ command: "true" }, extra);
      const bash = await paired(
        () => sandboxed.Bash.handler({ command: "true" }, extra),
        () => plain.Bash.handler({ command: "true" }, extra),
      );
      report.bash = { sandboxedMs: bash.a, analyserOnlyMs: bash.b, ratioSandboxedToAnalyser: bash.ratio };
    } catch (error) {
      report.bash = { skipped: String(error) };
    }
    const content = "x".repeat(4096);
    const write = await paired(
      () => plain.Write.handler({ file_path: "w.txt", content }, extra),
      () => writeFileSync(join(dir, "plain.txt"), content),
    );
    report.write = { writeToolMs: write.a, writeFileSyncMs: write.b, ratio: write.ratio };
    writeFileSync(join(dir, "g.txt"), "needle\n");
    const first = await time(() => plain.Grep.handler({ pattern: "needle", path: dir }, extra));
    const later = [];
    for (let index = 0; index < ROUNDS; index++)
      later.push(await time(() => plain.Grep.handler({ pattern: "needle", path: dir }, extra)));
    report.grep = { firstCallMs: twoDecimals(first), laterCallsMs: summary(later) };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runWriteBoundary();
  process.exit(0);
}
