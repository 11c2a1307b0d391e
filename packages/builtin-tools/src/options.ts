import { isAbsolute, resolve } from "node:path";
import { InvalidOptionError } from "@agent-lattice/core";

/** The tools this package provides, in the order they are returned. */
export const BUILTIN_TOOL_NAMES = ["Read", "Write", "Edit", "LS", "Glob", "Grep", "Bash"] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** What approveUnmodeled is asked about: a command the analyser cannot fully model, and why. */
export interface UnmodeledCommand {
  command: string;
  /** The Bash working directory. */
  cwd: string;
  /** One line per construct or target the analyser could not model. */
  reasons: string[];
}

export interface BashToolOptions {
  /**
   * The OS sandbox, the layer that enforces the write boundary for the shell:
   * - "auto" (default): bubblewrap when it can run here; otherwise the analyser alone, failing closed (commands it
   *   cannot fully model are refused).
   * - true: bubblewrap is required; without it Bash refuses to run and says why.
   * - false: no sandbox; the analyser alone, failing closed.
   */
  sandbox?: "auto" | boolean;
  /**
   * Variables added to the commands' environment, on top of the allowlist (PATH, HOME = the working directory,
   * LANG/LANGUAGE/LC_*, TERM, TZ from the host). `undefined` removes a variable. The host's environment is never
   * passed whole: provider keys and other secrets stay out of the model's shell unless you put them here.
   */
  env?: Record<string, string | undefined>;
  /** Bytes of stdout and of stderr kept per command (default 30000 each: the first two thirds and the last third); the rest is cut with a note. */
  maxOutputBytes?: number;
  /** false cuts the sandbox off the network (bubblewrap --unshare-net); it then requires the sandbox. Default true. */
  network?: boolean;
  /**
   * Without the sandbox: called when a command holds something the analyser cannot model (an interpreter, a build
   * tool, a run-time write target…). Return true to run it anyway — for hosts that review commands themselves, e.g.
   * with a person in the loop. Writes the analyser knows to be outside the roots are refused regardless. Default:
   * such commands are refused with the reasons.
   */
  approveUnmodeled?: (request: UnmodeledCommand) => boolean | Promise<boolean>;
}

export interface BuiltinToolsOptions {
  /** Base of relative paths and the Bash working directory (default process.cwd()). */
  cwd?: string;
  /**
   * Roots where Write, Edit and Bash may write (relative entries resolve against cwd). Default [cwd].
   * Pass [] to allow writes only through task-scoped grants.
   */
  allowedDirectories?: string[];
  /** Options of the Bash tool, or false to leave Bash out. */
  bash?: BashToolOptions | false;
  /** A subset of the tools to return (default all seven). */
  tools?: BuiltinToolName[];
}

export interface ResolvedBashOptions {
  sandbox: "auto" | "required" | "off";
  /** Host-given additions to the allowlisted environment. */
  env: Record<string, string | undefined>;
  maxOutputBytes: number;
  network: boolean;
  approveUnmodeled: BashToolOptions["approveUnmodeled"];
}

export const DEFAULT_MAX_OUTPUT_BYTES = 30_000;

const TOOLS_KEYS = new Set(["cwd", "allowedDirectories", "bash", "tools"]);
const BASH_KEYS = new Set(["sandbox", "env", "maxOutputBytes", "network", "approveUnmodeled"]);

/**
 * Strict option validation, as in core: an unknown key or a wrong type throws at assembly time with the same
 * message format, so a typo never silently widens or narrows what an agent may do.
 */
export function assertKnownOptions(
  options: object | undefined,
  known: ReadonlySet<string>,
  label: string,
): void {
  if (options === undefined) return;
  if (options === null || typeof options !== "object") {
    throw new InvalidOptionError(
      `${label}: expected an options object, got ${options === null ? "null" : typeof options}.`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!known.has(key)) {
      throw new InvalidOptionError(
        `${label}: unknown option "${key}". Check for a typo, or upgrade the SDK if this option was added in a newer version.`,
      );
    }
  }
}

export function resolveBashOptions(bash: BashToolOptions | undefined, label: string): ResolvedBashOptions {
  assertKnownOptions(bash, BASH_KEYS, `${label}.bash`);
  const sandbox = bash?.sandbox ?? "auto";
  if (sandbox !== "auto" && sandbox !== true && sandbox !== false) {
    throw new InvalidOptionError(
      `${label}.bash.sandbox must be "auto", true or false, got ${JSON.stringify(sandbox)}. ` +
        '"auto" uses bubblewrap where it can run, true requires it, false turns it off.',
    );
  }
  const max = bash?.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (!Number.isInteger(max) || max <= 0) {
    throw new InvalidOptionError(
      `${label}.bash.maxOutputBytes must be a positive integer, got ${JSON.stringify(max)}.`,
    );
  }
  const env = bash?.env;
  if (
    env !== undefined &&
    (env === null ||
      typeof env !== "object" ||
      Object.values(env).some(value => value !== undefined && typeof value !== "string"))
  ) {
    throw new InvalidOptionError(
      `${label}.bash.env must be an object of environment variables with string values (undefined removes one).`,
    );
  }
  const network = bash?.network ?? true;
  if (typeof network !== "boolean") {
    throw new InvalidOptionError(`${label}.bash.network must be a boolean, got ${JSON.stringify(network)}.`);
  }
  if (!network && sandbox === false) {
    throw new InvalidOptionError(
      `${label}.bash: network: false needs the sandbox (only bubblewrap can cut the network); remove sandbox: false.`,
    );
  }
  if (bash?.approveUnmodeled !== undefined && typeof bash.approveUnmodeled !== "function") {
    throw new InvalidOptionError(
      `${label}.bash.approveUnmodeled must be a function ({ command, reasons }) => boolean.`,
    );
  }
  return {
    sandbox: sandbox === true ? "required" : sandbox === false ? "off" : "auto",
    env: { ...(env ?? {}) },
    maxOutputBytes: max,
    network,
    approveUnmodeled: bash?.approveUnmodeled,
  };
}

/** The Bash options of a tool list without Bash (the other tools never read them). */
export const NO_BASH: ResolvedBashOptions = {
  sandbox: "off",
  env: {},
  maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
  network: true,
  approveUnmodeled: undefined,
};

export interface ResolvedToolsOptions {
  cwd: string;
  roots: string[];
  bash: ResolvedBashOptions | false;
  tools: BuiltinToolName[];
}

export function resolveToolsOptions(
  options: BuiltinToolsOptions | undefined,
  label: string,
): ResolvedToolsOptions {
  assertKnownOptions(options, TOOLS_KEYS, label);
  const cwdOption = options?.cwd;
  if (cwdOption !== undefined && (typeof cwdOption !== "string" || cwdOption === "")) {
    throw new InvalidOptionError(`${label}.cwd must be a non-empty path string.`);
  }
  const cwd = resolve(cwdOption ?? process.cwd());
  const dirs = options?.allowedDirectories;
  if (
    dirs !== undefined &&
    (!Array.isArray(dirs) || dirs.some(dir => typeof dir !== "string" || dir === ""))
  ) {
    throw new InvalidOptionError(`${label}.allowedDirectories must be an array of directory paths.`);
  }
  const roots = (dirs ?? [cwd]).map(dir => (isAbsolute(dir) ? dir : resolve(cwd, dir)));
  const tools = options?.tools ?? [...BUILTIN_TOOL_NAMES];
  if (!Array.isArray(tools) || tools.some(name => !BUILTIN_TOOL_NAMES.includes(name))) {
    throw new InvalidOptionError(
      `${label}.tools must list tool names among ${BUILTIN_TOOL_NAMES.join(", ")}.`,
    );
  }
  const bash = options?.bash === false ? false : resolveBashOptions(options?.bash, label);
  return { cwd, roots, bash, tools };
}
