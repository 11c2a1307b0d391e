import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { ToolHandlerExtra, ToolResult } from "@agent-lattice/core";
import { readPath } from "@agent-lattice/core/internal";
import type { ToolContext } from "../context.js";
import { compileGlob, GlobPatternError, splitGlobBase } from "../glob.js";
import { fsErrorMessage, plural } from "../text.js";
import { walkFiles, yieldToEventLoop } from "../walk.js";
import type { GlobInput } from "./glob.js";
import { GLOB_MAX_RESULTS } from "./limits.js";

/** The Glob tool's handler: loaded on the tool's first call, not when the tools are created. */
export async function runGlob(
  context: ToolContext,
  input: GlobInput,
  extra: ToolHandlerExtra,
): Promise<ToolResult> {
  await context.ensureCwd();
  const searchRoot = readPath(context.cwd, input.path ?? ".");
  const scan = splitGlobBase(input.pattern);
  const base = resolve(searchRoot, scan.base || ".");
  try {
    if (scan.glob === "") {
      // No wildcard: the pattern names one path.
      const info = await stat(base).catch(() => undefined);
      if (info?.isFile()) return { content: base };
      return {
        content: `No files match ${input.pattern} in ${searchRoot}${info?.isDirectory() ? ` (it is a directory; try ${input.pattern}/**/*)` : ""}.`,
      };
    }
    if (!(await stat(base)).isDirectory()) {
      return { content: `${base} is not a directory. Give Glob a directory as path.`, isError: true };
    }
    const match = compileGlob(scan.glob, { dot: true });
    const maxDepth = scan.glob.includes("**") ? undefined : scan.glob.split("/").length;
    const walk = await walkFiles(base, {
      accept: match,
      signal: extra.signal,
      ...(maxDepth ? { maxDepth } : {}),
    });
    if (walk.files.length === 0) return { content: `No files match ${input.pattern} in ${searchRoot}.` };
    const withTimes = await mtimes(walk.files.map(file => `${base === "/" ? "" : base}/${file}`));
    withTimes.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const shown = withTimes.slice(0, GLOB_MAX_RESULTS).map(entry => entry.path);
    const notes: string[] = [];
    if (withTimes.length > GLOB_MAX_RESULTS) {
      notes.push(
        `[${plural(withTimes.length, "file")} matched; showing the ${GLOB_MAX_RESULTS} most recently modified. Narrow the pattern or path to see the rest.]`,
      );
    }
    if (walk.truncated)
      notes.push("[The search stopped after 200000 files; narrow path to search the rest.]");
    return { content: [...shown, ...notes].join("\n") };
  } catch (error) {
    if ((error as Error).name === "AbortError") return { content: "Glob was aborted.", isError: true };
    if (error instanceof GlobPatternError) return { content: `Invalid ${error.message}.`, isError: true };
    return { content: `Cannot search ${base}: ${fsErrorMessage(error)}.`, isError: true };
  }
}

/** Modification times, read synchronously in slices (see yieldToEventLoop). */
async function mtimes(paths: string[]): Promise<Array<{ path: string; mtime: number }>> {
  const out: Array<{ path: string; mtime: number }> = [];
  for (const [index, path] of paths.entries()) {
    if (index % 512 === 511) await yieldToEventLoop();
    let mtime = 0;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      // vanished: sorts last
    }
    out.push({ path, mtime });
  }
  return out;
}
