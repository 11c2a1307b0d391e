import type { ToolContext } from "../context.js";

/** PATH when the host has none. */
const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Host variables that only describe locale and display, passed through when set. */
function isPassedThrough(name: string): boolean {
  return (
    name === "LANG" || name === "LANGUAGE" || name === "TERM" || name === "TZ" || /^LC_[A-Z_]+$/.test(name)
  );
}

/**
 * The commands' environment: an allowlist, never the host's process.env. PATH (the host's, else a standard one),
 * HOME set to the working directory (tools that write dotfiles write them in the workspace), the host's locale
 * and display variables, then what the host passed in `bash.env` (where `undefined` removes a variable). Provider
 * keys and other secrets reach the model's shell only if the host puts them there.
 */
export function bashEnvironment(context: Pick<ToolContext, "cwd" | "bash">): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH || DEFAULT_PATH, HOME: context.cwd };
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && isPassedThrough(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(context.bash.env)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
