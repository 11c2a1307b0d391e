import type { ToolDefinition } from "@agent-lattice/core";
import { createToolContext, type ToolContext } from "./context.js";
import { type BuiltinToolName, type BuiltinToolsOptions, NO_BASH, resolveToolsOptions } from "./options.js";
import { createBashTool } from "./tools/bash.js";
import { createEditTool } from "./tools/edit.js";
import { createGlobTool } from "./tools/glob.js";
import { createGrepTool } from "./tools/grep.js";
import { createLsTool } from "./tools/ls.js";
import { createReadTool } from "./tools/read.js";
import { createWriteTool } from "./tools/write.js";

const FACTORIES: Record<BuiltinToolName, (context: ToolContext) => ToolDefinition> = {
  Read: createReadTool,
  Write: createWriteTool,
  Edit: createEditTool,
  LS: createLsTool,
  Glob: createGlobTool,
  Grep: createGrepTool,
  Bash: createBashTool,
};

/**
 * Read, Write, Edit, LS, Glob, Grep and Bash over a host directory. Relative paths resolve against `cwd`
 * (default process.cwd()); writes are allowed inside `allowedDirectories` (default [cwd]) and inside the
 * task-scoped grants of each query. Unknown options throw.
 */
export function createBuiltinTools(options?: BuiltinToolsOptions): ToolDefinition[] {
  const resolved = resolveToolsOptions(options, "createBuiltinTools()");
  const context = createToolContext({
    cwd: resolved.cwd,
    roots: resolved.roots,
    bash: resolved.bash || NO_BASH,
  });
  return buildTools(
    context,
    resolved.tools.filter(name => name !== "Bash" || resolved.bash !== false),
  );
}

/** The tool list for a context, in the package's fixed order. */
export function buildTools(context: ToolContext, names: readonly BuiltinToolName[]): ToolDefinition[] {
  return names.map(name => FACTORIES[name](context));
}
