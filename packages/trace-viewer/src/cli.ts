#!/usr/bin/env node
// agent-lattice-trace: `view` writes one self-contained HTML file for JSONL traces; `serve` follows them live.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { AgentLatticeError } from "@agent-lattice/core";
import { readTraceFiles } from "./read-trace-files.js";
import { renderTraceHtml } from "./render-html.js";
import { startTraceServer } from "./trace-server.js";

const USAGE = `Usage:
  agent-lattice-trace view <trace.jsonl…> [--out trace.html] [--title TEXT] [--max-page-mb N]
      Writes one self-contained HTML file (no network; open it from disk).
  agent-lattice-trace serve <trace.jsonl…> [--port N] [--title TEXT] [--max-page-mb N]
      Serves the viewer on http://127.0.0.1 and updates it live as the files grow.
  agent-lattice-trace --help | --version

  --max-page-mb N   the largest page to build (default 256); a larger trace is an error, not a frozen browser`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: "string", short: "o" },
      port: { type: "string", short: "p" },
      title: { type: "string" },
      "max-page-mb": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.version) {
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    console.log(pkg.version);
    return 0;
  }
  const [command, ...files] = positionals;
  if (command !== "view" && command !== "serve")
    throw new UsageError(command ? `unknown command "${command}"` : "a command is required");
  if (!files.length) throw new UsageError(`${command} needs at least one trace file (.jsonl)`);
  const maxPageBytes = maxPageBytesOf(values["max-page-mb"]);

  if (command === "view") {
    if (values.port !== undefined) throw new UsageError("--port applies to serve, not view");
    const out = resolve(values.out ?? "trace.html");
    const events = await readTraceFiles(files);
    const html = renderTraceHtml(events, {
      title: values.title ?? files.map(file => basename(file)).join(", "),
      files,
      ...(maxPageBytes === undefined ? {} : { maxPageBytes }),
    });
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, html);
    console.log(
      `agent-lattice-trace: wrote ${out} (${events.length} events from ${files.length} file${files.length === 1 ? "" : "s"})`,
    );
    console.log(`  open ${pathToFileURL(out).href}`);
    return 0;
  }

  if (values.out !== undefined) throw new UsageError("--out applies to view, not serve");
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  const server = await startTraceServer({
    files,
    port,
    ...(values.title === undefined ? {} : { title: values.title }),
    ...(maxPageBytes === undefined ? {} : { maxPageBytes }),
    onError: error => console.error(`agent-lattice-trace: ${error.message}`),
  });
  console.log(
    `agent-lattice-trace: serving ${files.length} file${files.length === 1 ? "" : "s"} (${server.eventCount} events so far) at`,
  );
  console.log(`  ${server.url}`);
  console.log("  The page follows the files as they grow. Ctrl-C stops.");
  await new Promise<void>(done => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void server.close().then(done);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  return 0;
}

function maxPageBytesOf(megabytes: string | undefined): number | undefined {
  if (megabytes === undefined) return undefined;
  const bytes = Math.floor(Number(megabytes) * 1024 * 1024);
  if (!/^\d+(\.\d+)?$/.test(megabytes) || bytes < 1)
    throw new UsageError(`--max-page-mb must be a positive number of megabytes, got "${megabytes}"`);
  return bytes;
}

main(process.argv.slice(2)).then(
  code => {
    process.exitCode = code;
  },
  error => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`agent-lattice-trace: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof AgentLatticeError) {
      console.error(`agent-lattice-trace: ${error.message}`);
      process.exitCode = 1;
    } else {
      console.error(error);
      process.exitCode = 1;
    }
  },
);
