import { readdir, readlink, stat } from "node:fs/promises";
import type { ToolResult } from "@agent-lattice/core";
import { readPath } from "@agent-lattice/core/internal";
import type { ToolContext } from "../context.js";
import { compileGlobs, GlobPatternError } from "../glob.js";
import { fsErrorMessage, plural } from "../text.js";
import { LS_MAX_ENTRIES } from "./limits.js";
import type { LsInput } from "./ls.js";

/** The LS tool's handler: loaded on the tool's first call, not when the tools are created. */
export async function runLs(context: ToolContext, input: LsInput): Promise<ToolResult> {
  await context.ensureCwd();
  const path = readPath(context.cwd, input.path ?? ".");
  try {
    const ignored =
      input.ignore && input.ignore.length > 0 ? compileGlobs(input.ignore, { dot: true }) : undefined;
    const entries = (await readdir(path, { withFileTypes: true }))
      .filter(entry => !ignored?.(entry.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (entries.length === 0)
      return { content: `${path} is empty${ignored ? " (after ignore patterns)" : ""}.` };
    const shown = await Promise.all(
      entries.slice(0, LS_MAX_ENTRIES).map(async entry => {
        if (entry.isDirectory()) return `${entry.name}/`;
        if (!entry.isSymbolicLink()) return entry.name;
        const full = `${path}/${entry.name}`;
        const target = await readlink(full).catch(() => "?");
        const isDir = await stat(full).then(
          info => info.isDirectory(),
          () => false,
        );
        return `${entry.name}${isDir ? "/" : ""} -> ${target}`;
      }),
    );
    const lines = [`${path}/`, ...shown.map(line => `  ${line}`)];
    if (entries.length > LS_MAX_ENTRIES) {
      lines.push(
        `[${plural(entries.length, "entry", "entries")}; showing the first ${LS_MAX_ENTRIES}. Use Glob or a narrower path for the rest.]`,
      );
    }
    return { content: lines.join("\n") };
  } catch (error) {
    if (error instanceof GlobPatternError)
      return { content: `Invalid ignore ${error.message}.`, isError: true };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR")
      return { content: `${path} is a file, not a directory. Use Read to read it.`, isError: true };
    return { content: `Cannot list ${path}: ${fsErrorMessage(error)}.`, isError: true };
  }
}
