// Install check 3 (U2), run by packaging/test/install-alone.test.ts: this package installed from the packed
// tarballs beside @agent-lattice/core alone (no workspace, no umbrella). An agent writes a JSONL trace with core's
// tracer; the package's own command (`agent-lattice-trace view`, from node_modules/.bin as npx runs it) renders it
// to one HTML file, and the library's renderTraceHtml() gives the same page from the same file.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBareAgent, createJsonlContextTracer } from "@agent-lattice/core";
import { readTraceFiles, renderTraceHtml } from "@agent-lattice/trace-viewer";

const dir = mkdtempSync(join(tmpdir(), "smoke-trace-viewer-"));
try {
  const trace = join(dir, "session.jsonl");
  const modelClient = {
    async create() {
      return {
        message: { role: "assistant", content: [{ type: "text", text: "Traced answer." }] },
        stopReason: "end_turn",
        usage: { input_tokens: 3, output_tokens: 2 },
      };
    },
  };
  const tracer = createJsonlContextTracer({ path: trace });
  const agent = createBareAgent({ model: "smoke-model", modelClient, tracer });
  assert.equal((await agent.prompt("Trace me (smoke prompt)", { stream: false })).result, "Traced answer.");
  await tracer.close?.();

  const out = join(dir, "trace.html");
  const bin = join(process.cwd(), "node_modules/.bin/agent-lattice-trace");
  const run = spawnSync(bin, ["view", trace, "--out", out, "--title", "Smoke trace"], { encoding: "utf8" });
  assert.equal(run.status, 0, `agent-lattice-trace view failed:\n${run.stdout}\n${run.stderr}`);
  assert.ok(existsSync(out), "no HTML file was written");
  const html = readFileSync(out, "utf8");
  assert.match(html, /^<!doctype html>/i);
  assert.match(html, /Smoke trace/);
  assert.ok(html.includes("smoke-model"), "the page does not carry the run's model turn");

  const events = await readTraceFiles([trace]);
  assert.ok(events.length > 0, "readTraceFiles read no events");
  const page = await renderTraceHtml(events, { title: "Smoke trace" });
  assert.ok(page.includes("smoke-model"));
  console.log(`smoke ok: a JSONL trace rendered to HTML (${html.length} bytes)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
