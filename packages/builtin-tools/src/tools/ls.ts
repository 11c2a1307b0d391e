import { readdir, readlink, stat } from "node:fs/promises";
import { type ToolDefinition, tool } from "@agent-lattice/core";
import { readPath } from "@agent-lattice/core/internal";
import type { ToolContext } from "../context.js";
import { compileGlobs, GlobPatternError } from "../glob.js";
import { type InferInput, inputSchema } from "../input-schema.js";
import { fsErrorMessage, plural } from "../text.js";

/** Entries listed per call; the rest is counted in a note. */
export const LS_MAX_ENTRIES = 1000;

const schema = inputSchema({
  path: {
    type: "string",
    optional: true,
    description:
      "Directory to list (absolute, or relative to the working directory; default: the working directory)",
  },
  ignore: {
    type: "string[]",
    optional: true,
    description: 'Glob patterns of names to leave out, e.g. ["*.log", "dist"]',
  },
});

export function createLsTool(context: ToolContext): ToolDefinition<InferInput<typeof schema>> {
  return tool(
    "LS",
    "Lists one directory: entries sorted by name, directories marked with a trailing `/`, symlinks shown as " +
      `\`name -> target\`. At most ${LS_MAX_ENTRIES} entries. Use Glob to search recursively. Reads any path the ` +
      "process can read.",
    schema,
    async input => {
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
    },
    { isConcurrencySafe: () => true },
  );
}
