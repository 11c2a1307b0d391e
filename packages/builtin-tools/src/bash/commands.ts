import {
  type Arg,
  hasOption,
  type LongKind,
  literalArg,
  type OptionSpec,
  optionValues,
  type ParsedOptions,
  parseOptions,
  plain,
  stripPrefix,
  unknownArg,
} from "./args.js";
import { sedScriptWrites } from "./sed-script.js";

/**
 * The command table of the Bash analyser: what each command writes, and which commands it knows at all.
 *
 * Fail closed: a command is modeled only when everything it can write is known from its arguments. Commands that
 * only read are listed (READ_ONLY); commands that write have a handler naming their targets, with their complete
 * GNU long-option lists (getopt accepts any unambiguous prefix: `cp --target=/x` is `--target-directory`); wrappers
 * (env, nice, timeout, xargs, …) are peeled and the wrapped command analysed; `bash -c 'literal'` is analysed as
 * shell code. Everything else — interpreters, build tools, package managers, git, archives, unknown wrappers
 * (chroot, setpriv, unshare, script, …) and shell features that change what runs (eval, source, aliases, traps) —
 * is reported as not modeled. Without the OS sandbox that refuses the command; inside the sandbox it only informs.
 */

/** content: bytes written into the file (only /dev/null is a discard target). modify: the path itself is created
 * or changed (a symlink is followed). remove: the directory entry itself is removed or renamed (rm, unlink, rmdir,
 * mv's sources), so a symlink as the last component is not followed. link: a link is made to this path, so it
 * must be writable too (otherwise a later write through the link escapes). */
export type TargetKind = "content" | "modify" | "remove" | "link";

export type Stdin =
  | { kind: "none" }
  | { kind: "pipe" }
  | { kind: "file" }
  /** A here-document or here-string; `source` is undefined when it has run-time expansions. */
  | { kind: "text"; source: string | undefined };

/** `ln -s TARGET LINK`: where the stored TARGET will be resolved from. */
export interface SymlinkInfo {
  link: Arg;
  /** ln -r: TARGET is resolved against the working directory and stored relative. */
  relative: boolean;
}

export interface CommandSink {
  target(arg: Arg, kind: TargetKind, why: string, symlink?: SymlinkInfo): void;
  /** Something the analyser does not model: denied without the sandbox (fail closed). */
  opaque(text: string, reason: string): void;
  /**
   * Shell code to analyse with the current working directory. `sameShell` means it runs in the current shell,
   * so its `cd` carries over; otherwise (bash -c, …) it runs in a child.
   */
  script(source: string, why: string, sameShell?: boolean): void;
  /** Analyse `run` with the working directory changed to `dir` (env -C). */
  withCwd(dir: Arg, run: () => void): void;
  /** Analyse `run` with an unknown working directory (find -execdir). */
  withUnknownCwd(reason: string, run: () => void): void;
  /**
   * The command creates directory entries that may be symlinks (mv, cp -r): a later write in the same call could
   * go through them. `tree` is a destination whose existing subtree the copy writes into (cp -r).
   */
  entries(why: string, tree?: Arg): void;
  /** A glob operand that must not match a file whose name starts with "-" (it would become an option). */
  optionGlob(arg: Arg, command: string): void;
}

/** Shells whose `-c` string is bash-compatible and analysed; other shells (zsh, fish, csh…) are not modeled. */
const SHELLS = new Set(["bash", "sh", "dash", "rbash"]);
const MAX_DEPTH = 8;

type Handler = (args: Arg[], stdin: Stdin, sink: CommandSink, depth: number, name: string) => void;

/**
 * Commands that never write files, never run other programs and never read configuration that could make them
 * do either, whatever their arguments. Options are not parsed for these.
 */
export const READ_ONLY: ReadonlySet<string> = new Set([
  ":",
  "true",
  "false",
  "echo",
  "test",
  "[",
  "pwd",
  "exit",
  "return",
  "break",
  "continue",
  "shift",
  "wait",
  "times",
  "umask",
  "ulimit",
  "type",
  "jobs",
  "dirs",
  "disown",
  "unset",
  "cat",
  "tac",
  "head",
  "tail",
  "wc",
  "nl",
  "od",
  "hexdump",
  "cut",
  "tr",
  "paste",
  "join",
  "comm",
  "fold",
  "fmt",
  "expand",
  "unexpand",
  "rev",
  "column",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "stat",
  "du",
  "df",
  "seq",
  "sleep",
  "id",
  "whoami",
  "groups",
  "uname",
  "arch",
  "nproc",
  "printenv",
  "grep",
  "egrep",
  "fgrep",
  "diff",
  "cmp",
  "md5sum",
  "sha1sum",
  "sha224sum",
  "sha256sum",
  "sha384sum",
  "sha512sum",
  "b2sum",
  "cksum",
  "sum",
  "base64",
  "base32",
  "basenc",
  "ls",
  "dir",
  "vdir",
  "which",
  "locale",
  "getconf",
  "expr",
  "factor",
  "numfmt",
  "tsort",
  "strings",
  "ps",
  "free",
  "uptime",
  "tty",
  "yes",
  "jq",
  "cal",
]);

/** Shell builtins: a `X=1 builtin` prefix assignment never reaches another program's environment. */
export const BUILTINS: ReadonlySet<string> = new Set([
  ":",
  "true",
  "false",
  "echo",
  "printf",
  "test",
  "[",
  "pwd",
  "cd",
  "pushd",
  "popd",
  "read",
  "mapfile",
  "readarray",
  "getopts",
  "exit",
  "return",
  "shift",
  "wait",
  "type",
  "unset",
  "local",
  "declare",
  "typeset",
  "readonly",
  "export",
  "let",
  "set",
  "umask",
  "ulimit",
  "jobs",
  "dirs",
  "times",
  "break",
  "continue",
]);

/**
 * Environment variables a command may pass to a program (`X=1 cmd`, `env X=1 cmd`, `export X`): the ones that
 * only change formatting. Others can redirect a program (LD_PRELOAD, TMPDIR, POSIXLY_CORRECT, BASH_ENV, …).
 */
export function isHarmlessEnvName(name: string): boolean {
  return (
    /^LC_[A-Z_]+$/.test(name) ||
    [
      "LANG",
      "LANGUAGE",
      "TZ",
      "TERM",
      "COLUMNS",
      "LINES",
      "NO_COLOR",
      "FORCE_COLOR",
      "CLICOLOR",
      "GREP_COLORS",
      "LS_COLORS",
    ].includes(name)
  );
}

export function analyzeArgv(argv: Arg[], stdin: Stdin, sink: CommandSink, depth = 0): void {
  const [first, ...args] = argv;
  if (first === undefined) return;
  if (depth > MAX_DEPTH) {
    sink.opaque(first.text, "wrappers and nested shells are nested too deeply to analyse");
    return;
  }
  const name = plain(first);
  if (name === undefined) {
    const reason = first.evaluated.known ? "a glob or brace expansion" : first.evaluated.reason;
    sink.opaque(first.text, `the command name is only known at run time (${reason})`);
    return;
  }
  const command = commandName(name);
  if (command === undefined) {
    sink.opaque(
      name,
      `${name} runs a program given by its path, which the analyser cannot know the behaviour of (only commands ` +
        "from the system directories /bin, /usr/bin, /usr/local/bin and their sbin are modeled)",
    );
    return;
  }
  if (READ_ONLY.has(command)) return;
  const handler = HANDLERS[command];
  if (handler === undefined) {
    sink.opaque(
      commandText(argv),
      `${command} is not a command the analyser models (it may write files, run other programs or read ` +
        "configuration the agent can change)",
    );
    return;
  }
  handler(args, stdin, sink, depth, command);
}

/** The table name of a command word: `rm`, `/usr/bin/rm` and `\rm` are rm; `./rm` or `/tmp/rm` are not modeled. */
function commandName(word: string): string | undefined {
  if (!word.includes("/")) return word;
  const match = /^\/(?:usr\/(?:local\/)?)?s?bin\/([^/]+)$/.exec(word);
  return match ? match[1] : undefined;
}

function commandText(argv: readonly Arg[]): string {
  const text = argv.map(arg => arg.text).join(" ");
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Runs the wrapped command (the operands of a wrapper) through the table again. */
function wrapped(operands: Arg[], stdin: Stdin, sink: CommandSink, depth: number): void {
  analyzeArgv(operands, stdin, sink, depth + 1);
}

const targets = (args: Arg[], kind: TargetKind, why: string, sink: CommandSink) => {
  for (const arg of args) sink.target(arg, kind, why);
};

/** Parses with `spec`; reports unknown or ambiguous options (then the command is not modeled). */
function parse(args: Arg[], spec: OptionSpec, sink: CommandSink, command: string): ParsedOptions | undefined {
  const parsed = parseOptions(args, spec);
  for (const glob of parsed.optionGlobs) sink.optionGlob(glob, command);
  if (parsed.problems.length === 0) return parsed;
  sink.opaque(`${command} ${commandText(args)}`, `${command}: ${parsed.problems.join("; ")}`);
  return undefined;
}

const flags = (...names: string[]): Record<string, LongKind> =>
  Object.fromEntries(names.map(name => [name, "flag" as const]));
const values = (...names: string[]): Record<string, LongKind> =>
  Object.fromEntries(names.map(name => [name, "value" as const]));
const optionals = (...names: string[]): Record<string, LongKind> =>
  Object.fromEntries(names.map(name => [name, "optional" as const]));

// Complete GNU coreutils / sed long-option lists (coreutils 9.x `--help`), so prefixes resolve as getopt does.
const COMMON = flags("help", "version", "verbose");
const CP_LONG = {
  ...COMMON,
  ...flags(
    "archive",
    "attributes-only",
    "copy-contents",
    "dereference",
    "force",
    "interactive",
    "link",
    "no-clobber",
    "no-dereference",
    "no-target-directory",
    "one-file-system",
    "parents",
    "recursive",
    "remove-destination",
    "strip-trailing-slashes",
    "symbolic-link",
    "keep-directory-symlink",
    "debug",
  ),
  ...values("no-preserve", "sparse", "suffix", "target-directory"),
  ...optionals("backup", "context", "preserve", "reflink", "update"),
};
const MV_LONG = {
  ...COMMON,
  ...flags(
    "context",
    "force",
    "interactive",
    "no-clobber",
    "no-copy",
    "no-target-directory",
    "strip-trailing-slashes",
    "exchange",
    "debug",
  ),
  ...values("suffix", "target-directory"),
  ...optionals("backup", "update"),
};
const LN_LONG = {
  ...COMMON,
  ...flags(
    "directory",
    "force",
    "interactive",
    "logical",
    "no-dereference",
    "no-target-directory",
    "physical",
    "relative",
    "symbolic",
  ),
  ...values("suffix", "target-directory"),
  ...optionals("backup"),
};
const RM_LONG = {
  ...COMMON,
  ...flags("dir", "force", "no-preserve-root", "one-file-system", "recursive"),
  ...optionals("interactive", "preserve-root"),
};
const RMDIR_LONG = { ...COMMON, ...flags("ignore-fail-on-non-empty", "parents") };
const MKDIR_LONG = { ...COMMON, ...flags("parents"), ...values("mode"), ...optionals("context") };
const MKFIFO_LONG = { ...COMMON, ...values("mode"), ...optionals("context") };
const TOUCH_LONG = {
  ...COMMON,
  ...flags("no-create", "no-dereference"),
  ...values("date", "reference", "time"),
};
const TRUNCATE_LONG = { ...COMMON, ...flags("io-blocks", "no-create"), ...values("reference", "size") };
const CHMOD_LONG = {
  ...COMMON,
  ...flags("changes", "no-preserve-root", "preserve-root", "quiet", "recursive", "silent"),
  ...values("reference"),
};
const CHOWN_LONG = {
  ...CHMOD_LONG,
  ...flags("dereference", "no-dereference"),
  ...values("from"),
};
const INSTALL_LONG = {
  ...COMMON,
  ...flags(
    "compare",
    "directory",
    "no-target-directory",
    "preserve-context",
    "preserve-timestamps",
    "strip",
    "debug",
  ),
  ...values("group", "mode", "owner", "strip-program", "suffix", "target-directory"),
  ...optionals("backup", "context"),
};
const TEE_LONG = { ...COMMON, ...flags("append", "ignore-interrupts"), ...optionals("output-error") };
const SED_LONG = {
  ...COMMON,
  ...flags(
    "debug",
    "follow-symlinks",
    "null-data",
    "zero-terminated",
    "posix",
    "quiet",
    "silent",
    "regexp-extended",
    "sandbox",
    "separate",
    "unbuffered",
    "binary",
  ),
  ...values("expression", "file", "line-length"),
  ...optionals("in-place"),
};
const SORT_LONG = {
  ...COMMON,
  ...flags(
    "debug",
    "dictionary-order",
    "general-numeric-sort",
    "human-numeric-sort",
    "ignore-case",
    "ignore-leading-blanks",
    "ignore-nonprinting",
    "merge",
    "month-sort",
    "numeric-sort",
    "random-sort",
    "reverse",
    "stable",
    "unique",
    "version-sort",
    "zero-terminated",
  ),
  ...values(
    "batch-size",
    "buffer-size",
    "compress-program",
    "field-separator",
    "files0-from",
    "key",
    "output",
    "parallel",
    "random-source",
    "sort",
    "temporary-directory",
  ),
  ...optionals("check"),
};
const UNIQ_LONG = {
  ...COMMON,
  ...flags("count", "ignore-case", "repeated", "unique", "zero-terminated"),
  ...values("check-chars", "skip-chars", "skip-fields"),
  ...optionals("all-repeated", "group"),
};
const SHUF_LONG = {
  ...COMMON,
  ...flags("echo", "repeat", "zero-terminated"),
  ...values("head-count", "input-range", "output", "random-source"),
};
const ICONV_LONG = {
  ...COMMON,
  ...flags("list", "silent", "usage"),
  ...values("from-code", "to-code", "output"),
};
const SHRED_LONG = {
  ...COMMON,
  ...flags("exact", "force", "zero"),
  ...values("iterations", "random-source", "size"),
  ...optionals("remove"),
};
const DATE_LONG = {
  ...COMMON,
  ...flags("debug", "rfc-email", "universal", "utc", "resolution"),
  ...values("date", "file", "reference", "rfc-3339", "set"),
  ...optionals("iso-8601"),
};
const ENV_LONG = {
  ...COMMON,
  ...flags("debug", "ignore-environment", "null", "list-signal-handling"),
  ...values("chdir", "split-string", "unset"),
  ...optionals("block-signal", "default-signal", "ignore-signal"),
};
const TIMEOUT_LONG = {
  ...COMMON,
  ...flags("foreground", "preserve-status"),
  ...values("kill-after", "signal"),
};
const XARGS_LONG = {
  ...COMMON,
  ...flags("exit", "interactive", "no-run-if-empty", "null", "open-tty", "show-limits"),
  ...values("arg-file", "delimiter", "max-args", "max-chars", "max-lines", "max-procs", "process-slot-var"),
  ...optionals("eof", "replace"),
};

/** A backup suffix with a "/" puts the backup in another directory (`--suffix=/../../x`). */
function checkSuffix(parsed: ParsedOptions, sink: CommandSink, command: string): boolean {
  for (const suffix of optionValues(parsed, "S", "suffix")) {
    const value = plain(suffix);
    if (value === undefined || value.includes("/")) {
      sink.opaque(
        `${command} --suffix=${suffix.text}`,
        `a backup suffix with "/" or a run-time value is not modeled`,
      );
      return false;
    }
  }
  return true;
}

const HANDLERS: Record<string, Handler> = {
  // --- wrappers -------------------------------------------------------------------------------------
  env(args, stdin, sink, depth) {
    const parsed = parse(args, { short: "uCS", long: ENV_LONG, stopAtOperand: true }, sink, "env");
    if (!parsed) return;
    let rest = parsed.operands;
    while (rest.length > 0) {
      const assignment = /^([^=]*)=/.exec(plain(rest[0]!) ?? "");
      if (!assignment) break;
      if (!isHarmlessEnvName(assignment[1]!)) {
        sink.opaque(
          rest[0]!.text,
          `env passes ${assignment[1]} to the program's environment; only locale and display variables are modeled`,
        );
        return;
      }
      rest = rest.slice(1);
    }
    if (rest.length === 0) return; // prints the environment
    const splits = optionValues(parsed, "S", "split-string");
    for (const split of splits) {
      const source = plain(split);
      if (source === undefined) sink.opaque(split.text, "env -S with a string only known at run time");
      else sink.script([source, ...rest.map(arg => arg.text)].join(" "), "env -S");
    }
    if (splits.length > 0) return;
    const dir = optionValues(parsed, "C", "chdir")[0];
    if (dir !== undefined) sink.withCwd(dir, () => wrapped(rest, stdin, sink, depth));
    else wrapped(rest, stdin, sink, depth);
  },
  nice(args, stdin, sink, depth) {
    const parsed = parse(
      args,
      { short: "n", long: { ...COMMON, ...values("adjustment") }, stopAtOperand: true },
      sink,
      "nice",
    );
    if (parsed) wrapped(parsed.operands, stdin, sink, depth);
  },
  nohup(args, stdin, sink, depth) {
    const parsed = parse(args, { long: COMMON, stopAtOperand: true }, sink, "nohup");
    // nohup writes nohup.out in the working directory (or HOME) when stdout is a terminal; here it is a pipe.
    if (parsed) wrapped(parsed.operands, stdin, sink, depth);
  },
  stdbuf(args, stdin, sink, depth) {
    const parsed = parse(
      args,
      { short: "ioe", long: { ...COMMON, ...values("input", "output", "error") }, stopAtOperand: true },
      sink,
      "stdbuf",
    );
    if (parsed) wrapped(parsed.operands, stdin, sink, depth);
  },
  timeout(args, stdin, sink, depth) {
    const parsed = parse(args, { short: "sk", long: TIMEOUT_LONG, stopAtOperand: true }, sink, "timeout");
    if (parsed) wrapped(parsed.operands.slice(1), stdin, sink, depth); // the first operand is the duration
  },
  time(args, stdin, sink, depth) {
    const parsed = parse(
      args,
      {
        short: "fo",
        long: { ...COMMON, ...flags("append", "portability", "quiet"), ...values("format", "output") },
        stopAtOperand: true,
      },
      sink,
      "time",
    );
    if (!parsed) return;
    targets(optionValues(parsed, "o", "output"), "content", "time -o", sink);
    wrapped(parsed.operands, stdin, sink, depth);
  },
  command(args, stdin, sink, depth) {
    const parsed = parse(args, { stopAtOperand: true }, sink, "command");
    if (!parsed || hasOption(parsed, "v", "V")) return; // -v / -V only look the name up
    wrapped(parsed.operands, stdin, sink, depth); // -p: the default PATH, same commands
  },
  builtin(args, stdin, sink, depth) {
    const operands = plain(args[0] ?? literalArg("")) === "--" ? args.slice(1) : args;
    wrapped(operands, stdin, sink, depth);
  },
  exec(args, stdin, sink, depth) {
    const parsed = parse(args, { short: "a", stopAtOperand: true }, sink, "exec");
    if (parsed) wrapped(parsed.operands, stdin, sink, depth);
  },
  xargs(args, _stdin, sink, depth) {
    const parsed = parse(
      args,
      { short: "adEILnPs", optionalShort: "eil", long: XARGS_LONG, stopAtOperand: true },
      sink,
      "xargs",
    );
    if (!parsed || parsed.operands.length === 0) return; // echo
    const replace = parsed.options.find(option => ["I", "i", "replace"].includes(option.name));
    const token = replace === undefined ? undefined : plain(replace.value ?? literalArg("")) || "{}";
    const fromInput = "arguments read from standard input by xargs";
    const argv =
      token === undefined
        ? [...parsed.operands, unknownArg("<xargs input>", fromInput)]
        : parsed.operands.map((arg, index) =>
            index > 0 && arg.text.includes(token) ? unknownArg(arg.text, fromInput) : arg,
          );
    wrapped(argv, { kind: "pipe" }, sink, depth);
  },
  flock(args, stdin, sink, depth) {
    const parsed = parse(
      args,
      {
        short: "wEc",
        long: {
          ...COMMON,
          ...flags("shared", "exclusive", "unlock", "nonblock", "nb", "no-fork", "close"),
          ...values("timeout", "wait", "conflict-exit-code", "command"),
        },
        stopAtOperand: true,
      },
      sink,
      "flock",
    );
    if (!parsed) return;
    const [lockFile, ...rest] = parsed.operands;
    if (lockFile !== undefined) sink.target(lockFile, "modify", "flock lock file");
    const commands = optionValues(parsed, "c", "command");
    for (const command of commands) {
      const source = plain(command);
      if (source === undefined) sink.opaque(command.text, "flock -c with a command only known at run time");
      else sink.script(source, "flock -c");
    }
    if (commands.length === 0) wrapped(rest, stdin, sink, depth);
  },
  watch(args, _stdin, sink) {
    const parsed = parse(
      args,
      {
        short: "ndqs",
        long: {
          ...COMMON,
          ...flags(
            "beep",
            "color",
            "no-color",
            "errexit",
            "exec",
            "no-title",
            "no-wrap",
            "precise",
            "chgexit",
          ),
          ...values("interval", "equexit", "shell", "no-linewrap"),
          ...optionals("differences"),
        },
        stopAtOperand: true,
      },
      sink,
      "watch",
    );
    if (!parsed) return;
    const words = parsed.operands.map(plain);
    if (words.some(word => word === undefined))
      sink.opaque(commandText(args), "a watch command only known at run time");
    else if (words.length > 0) sink.script(words.join(" "), "watch command");
  },

  // --- shell built-ins that change what runs, or how --------------------------------------------------
  eval: (args, _stdin, sink) =>
    sink.opaque(`eval ${commandText(args)}`, "eval runs a string as shell code; write the commands directly"),
  source: (args, _stdin, sink) =>
    sink.opaque(`source ${commandText(args)}`, "source runs a script file, whose content is not analysed"),
  ".": (args, _stdin, sink) =>
    sink.opaque(`. ${commandText(args)}`, "`.` runs a script file, whose content is not analysed"),
  trap(args, _stdin, sink) {
    if (args.length === 0 || args.every(arg => /^-[lp]$/.test(plain(arg) ?? ""))) return; // lists traps
    sink.opaque(`trap ${commandText(args)}`, "a trap runs code later, at a signal or at exit; not modeled");
  },
  alias: (args, _stdin, sink) =>
    sink.opaque(`alias ${commandText(args)}`, "aliases change what a command name runs; not modeled"),
  shopt: (args, _stdin, sink) =>
    sink.opaque(
      `shopt ${commandText(args)}`,
      "shell options (lastpipe, cdable_vars, extglob, expand_aliases, …) change how bash resolves directories, " +
        "globs and commands; not modeled",
    ),
  enable: (args, _stdin, sink) =>
    sink.opaque(`enable ${commandText(args)}`, "enable can load built-ins from shared objects; not modeled"),
  hash(args, _stdin, sink) {
    if (args.length === 0 || (args.length === 1 && plain(args[0]!) === "-r")) return;
    sink.opaque(`hash ${commandText(args)}`, "hash can make a command name run another program; not modeled");
  },
  history: (args, _stdin, sink) =>
    sink.opaque(`history ${commandText(args)}`, "history can write the history file; not modeled"),
  fc: (args, _stdin, sink) =>
    sink.opaque(`fc ${commandText(args)}`, "fc runs an editor and commands; not modeled"),
  bind: (args, _stdin, sink) => sink.opaque(`bind ${commandText(args)}`, "bind is not modeled"),
  complete: (args, _stdin, sink) => sink.opaque(`complete ${commandText(args)}`, "complete is not modeled"),
  compgen: (args, _stdin, sink) => sink.opaque(`compgen ${commandText(args)}`, "compgen is not modeled"),
  kill: (args, _stdin, sink) =>
    sink.opaque(
      `kill ${commandText(args)}`,
      "kill can signal processes outside this command (the host itself); it is safe only inside the sandbox's " +
        "own process namespace",
    ),
  set(args, _stdin, sink) {
    // Only options that do not change how names, directories or jobs resolve: -e -u -x -v -C and -o with
    // errexit, nounset, xtrace, verbose, noclobber or pipefail (also in clusters such as -euo pipefail).
    const harmless = ["errexit", "nounset", "xtrace", "pipefail", "noclobber", "verbose"];
    for (let index = 0; index < args.length; index++) {
      const word = plain(args[index]!);
      if (word === undefined) {
        sink.opaque(`set ${commandText(args)}`, "set with arguments only known at run time");
        return;
      }
      if (word === "--" || word === "-" || !/^[-+]/.test(word)) return; // the rest are positional parameters
      for (const letter of word.slice(1)) {
        if ("euxvC".includes(letter)) continue;
        if (letter === "o") {
          const option = plain(args[++index] ?? literalArg(""));
          if (option === "" || harmless.includes(option ?? "")) continue;
          sink.opaque(
            `set ${word} ${option ?? "?"}`,
            `set -o ${option ?? "?"} changes how bash runs the commands; not modeled`,
          );
          return;
        }
        sink.opaque(
          `set ${word}`,
          `set -${letter} changes how bash runs the commands (for example -m puts jobs out of reach, -P resolves ` +
            "directories physically, -a exports every variable); not modeled",
        );
        return;
      }
    }
  },
  declare: declaration,
  typeset: declaration,
  local: declaration,
  readonly: declaration,
  export: declaration,
  printf: () => undefined, // -v NAME is an assignment: checked with every other assignment
  read: () => undefined, // assignments: checked with every other assignment
  getopts: () => undefined,
  let: () => undefined, // arithmetic: checked where arithmetic is
  mapfile: mapfileCommand,
  readarray: mapfileCommand,

  // --- writes ---------------------------------------------------------------------------------------
  rm(args, _stdin, sink) {
    const parsed = parse(args, { long: RM_LONG }, sink, "rm");
    if (parsed) targets(parsed.operands, "remove", "rm operand", sink);
  },
  rmdir(args, _stdin, sink) {
    const parsed = parse(args, { long: RMDIR_LONG }, sink, "rmdir");
    if (!parsed) return;
    targets(parsed.operands, "remove", "rmdir operand", sink);
    if (hasOption(parsed, "p", "parents")) {
      // rmdir -p also removes every parent named in the operand.
      for (const operand of parsed.operands) {
        const value = plain(operand);
        if (value === undefined) continue;
        const parts = value.split("/").filter(Boolean);
        for (let cut = parts.length - 1; cut > 0; cut--) {
          const parent = `${value.startsWith("/") ? "/" : ""}${parts.slice(0, cut).join("/")}`;
          sink.target(literalArg(parent, operand.text), "remove", "rmdir -p parent");
        }
      }
    }
  },
  unlink(args, _stdin, sink) {
    const parsed = parse(args, { long: COMMON }, sink, "unlink");
    if (parsed) targets(parsed.operands, "remove", "unlink operand", sink);
  },
  shred(args, _stdin, sink) {
    const parsed = parse(args, { short: "ns", long: SHRED_LONG }, sink, "shred");
    if (parsed) targets(parsed.operands, "modify", "shred operand", sink);
  },
  touch(args, _stdin, sink) {
    const parsed = parse(args, { short: "dtr", long: TOUCH_LONG }, sink, "touch");
    if (!parsed) return;
    const kind = hasOption(parsed, "h", "no-dereference") ? "remove" : "modify";
    targets(parsed.operands, kind, "touch operand", sink);
  },
  mkdir(args, _stdin, sink) {
    const parsed = parse(args, { short: "m", long: MKDIR_LONG }, sink, "mkdir");
    if (parsed) targets(parsed.operands, "modify", "mkdir operand", sink);
  },
  mkfifo(args, _stdin, sink) {
    const parsed = parse(args, { short: "m", long: MKFIFO_LONG }, sink, "mkfifo");
    if (parsed) targets(parsed.operands, "modify", "mkfifo operand", sink);
  },
  tee(args, _stdin, sink) {
    const parsed = parse(args, { long: TEE_LONG }, sink, "tee");
    if (parsed) targets(parsed.operands, "content", "tee operand", sink);
  },
  truncate(args, _stdin, sink) {
    const parsed = parse(args, { short: "rs", long: TRUNCATE_LONG }, sink, "truncate");
    if (parsed) targets(parsed.operands, "modify", "truncate operand", sink);
  },
  cp(args, _stdin, sink) {
    const parsed = parse(args, { short: "tS", long: CP_LONG }, sink, "cp");
    if (!parsed || !checkSuffix(parsed, sink, "cp")) return;
    const destination = copyLike(parsed, "cp", "content", sink);
    if (hasOption(parsed, "l", "link", "s", "symbolic-link")) {
      const sources = hasOption(parsed, "t", "target-directory")
        ? parsed.operands
        : parsed.operands.slice(0, -1);
      targets(sources, "link", "cp --link/--symbolic-link source", sink);
    }
    const recursive = hasOption(parsed, "r", "R", "recursive", "a", "archive");
    const keepsLinks = hasOption(parsed, "d", "P", "no-dereference", "a", "archive", "preserve");
    if (recursive || keepsLinks) sink.entries("cp copies a tree, which may contain symlinks", destination);
  },
  mv(args, _stdin, sink) {
    const parsed = parse(args, { short: "tS", long: MV_LONG }, sink, "mv");
    if (!parsed || !checkSuffix(parsed, sink, "mv")) return;
    // Sources are removed from where they are, so they must be writable too.
    const dir = optionValues(parsed, "t", "target-directory");
    targets(dir.length > 0 ? parsed.operands : parsed.operands.slice(0, -1), "remove", "mv source", sink);
    targets(dir.length > 0 ? dir : parsed.operands.slice(-1), "modify", "mv destination", sink);
    sink.entries("mv moves entries, which may be symlinks or trees holding them, to new names");
  },
  ln(args, _stdin, sink) {
    const parsed = parse(args, { short: "tS", long: LN_LONG }, sink, "ln");
    if (!parsed || !checkSuffix(parsed, sink, "ln")) return;
    const symbolic = hasOption(parsed, "s", "symbolic");
    const dir = optionValues(parsed, "t", "target-directory")[0];
    let sources: Arg[];
    let link: Arg;
    if (dir !== undefined) {
      sources = parsed.operands;
      link = dir;
    } else if (parsed.operands.length === 1) {
      sources = parsed.operands;
      link = literalArg(".", "(current directory)");
    } else {
      sources = parsed.operands.slice(0, -1);
      link = parsed.operands.at(-1) ?? literalArg(".");
    }
    sink.target(link, "modify", "ln link name");
    const relative = hasOption(parsed, "r", "relative");
    for (const source of sources) {
      if (symbolic) sink.target(source, "link", "ln -s target", { link, relative });
      else sink.target(source, "link", "ln target");
    }
  },
  link(args, _stdin, sink) {
    const parsed = parse(args, { long: COMMON }, sink, "link");
    if (!parsed) return;
    const [source, name] = parsed.operands;
    if (source !== undefined) sink.target(source, "link", "link target");
    if (name !== undefined) sink.target(name, "modify", "link name");
  },
  install(args, _stdin, sink) {
    const parsed = parse(args, { short: "gmoSt", long: INSTALL_LONG }, sink, "install");
    if (!parsed || !checkSuffix(parsed, sink, "install")) return;
    if (optionValues(parsed, "strip-program").length > 0) {
      sink.opaque(`install ${commandText(args)}`, "install --strip-program runs a program; not modeled");
      return;
    }
    if (hasOption(parsed, "d", "directory")) targets(parsed.operands, "modify", "install -d operand", sink);
    else copyLike(parsed, "install", "modify", sink);
  },
  sed(args, _stdin, sink) {
    const parsed = parse(args, { short: "efl", optionalShort: "i", long: SED_LONG }, sink, "sed");
    if (!parsed) return;
    if (optionValues(parsed, "f", "file").length > 0 || hasOption(parsed, "f", "file")) {
      sink.opaque(`sed ${commandText(args)}`, "sed -f reads its script from a file, which is not analysed");
      return;
    }
    const expressions = optionValues(parsed, "e", "expression");
    const scripts = expressions.length > 0 ? expressions : parsed.operands.slice(0, 1);
    const files = expressions.length > 0 ? parsed.operands : parsed.operands.slice(1);
    for (const script of scripts) {
      const source = plain(script);
      if (source === undefined) {
        sink.opaque(
          script.text,
          "a sed script only known at run time (it could write files with w or run e)",
        );
        return;
      }
      const writes = sedScriptWrites(source);
      if ("problem" in writes) {
        sink.opaque(script.text, `sed script: ${writes.problem}`);
        return;
      }
      for (const file of writes.files)
        sink.target(literalArg(file, `${script.text} (w ${file})`), "content", "sed w file");
    }
    const inPlace = parsed.options.filter(option => option.name === "i" || option.name === "in-place");
    if (inPlace.length === 0) return;
    for (const option of inPlace) {
      const suffix = option.value === undefined ? "" : plain(option.value);
      if (suffix === undefined || suffix.includes("/")) {
        sink.opaque(
          `sed -i${option.value?.text ?? ""}`,
          'a sed -i backup suffix with "/" puts the backup in another directory; not modeled',
        );
        return;
      }
    }
    targets(files, "modify", "sed -i file", sink);
  },
  dd(args, _stdin, sink) {
    for (const arg of args) {
      const text = plain(arg);
      if (text === undefined) {
        sink.opaque(arg.text, "a dd operand only known at run time");
        continue;
      }
      if (text.startsWith("of=")) sink.target(stripPrefix(arg, "of="), "content", "dd of=");
    }
  },
  chmod(args, _stdin, sink) {
    // A mode such as -w or -x looks like an option: take any dash word made of mode characters as the mode.
    const isMode = (arg: Arg) => /^-[rwxXstugoa0-7,+=-]+$/.test(plain(arg) ?? "");
    const mode = args.find(isMode);
    const parsed = parse(
      args.filter(arg => arg !== mode),
      { long: CHMOD_LONG },
      sink,
      "chmod",
    );
    if (!parsed) return;
    const reference = hasOption(parsed, "reference");
    targets(
      reference || mode !== undefined ? parsed.operands : parsed.operands.slice(1),
      "modify",
      "chmod operand",
      sink,
    );
  },
  chown: (args, _stdin, sink) => ownerLike(args, "chown", sink),
  chgrp: (args, _stdin, sink) => ownerLike(args, "chgrp", sink),
  find: findCommand,
  sort(args, _stdin, sink) {
    const parsed = parse(args, { short: "kotST", long: SORT_LONG }, sink, "sort");
    if (!parsed) return;
    if (optionValues(parsed, "compress-program").length > 0) {
      sink.opaque(`sort ${commandText(args)}`, "sort --compress-program runs a program; not modeled");
      return;
    }
    targets(optionValues(parsed, "o", "output"), "content", "sort -o", sink);
    targets(optionValues(parsed, "T", "temporary-directory"), "modify", "sort temporary directory", sink);
  },
  uniq(args, _stdin, sink) {
    const parsed = parse(args, { short: "fsw", long: UNIQ_LONG }, sink, "uniq");
    if (parsed && parsed.operands[1] !== undefined)
      sink.target(parsed.operands[1], "content", "uniq output file");
  },
  shuf(args, _stdin, sink) {
    const parsed = parse(args, { short: "inoe", long: SHUF_LONG }, sink, "shuf");
    if (parsed) targets(optionValues(parsed, "o", "output"), "content", "shuf -o", sink);
  },
  iconv(args, _stdin, sink) {
    const parsed = parse(args, { short: "fto", long: ICONV_LONG }, sink, "iconv");
    if (parsed) targets(optionValues(parsed, "o", "output"), "content", "iconv -o", sink);
  },
  date(args, _stdin, sink) {
    const parsed = parse(args, { short: "dfrsI", long: DATE_LONG }, sink, "date");
    if (parsed && hasOption(parsed, "s", "set"))
      sink.opaque(`date ${commandText(args)}`, "date --set changes the system clock; not modeled");
  },
  hostname(args, _stdin, sink) {
    if (args.some(arg => !/^-[a-zA-Z]+$/.test(plain(arg) ?? "")))
      sink.opaque(`hostname ${commandText(args)}`, "hostname NAME changes the system's name; not modeled");
  },
  awk: awkCommand,
  mawk: awkCommand,
  gawk: awkCommand,
  nawk: awkCommand,
};

for (const shell of SHELLS) HANDLERS[shell] = shellCommand;

/** declare/typeset/local/readonly/export: namerefs and integer variables are not modeled; exports must be harmless. */
function declaration(args: Arg[], _stdin: Stdin, sink: CommandSink, _depth: number, name: string): void {
  let exports = name === "export";
  for (const arg of args) {
    const word = plain(arg);
    if (word === undefined) continue; // assignments with run-time names are checked with every other assignment
    if (/^[-+][a-zA-Z]+$/.test(word)) {
      if (/[nifF]/.test(word.slice(1)) && word.startsWith("-")) {
        sink.opaque(
          `${name} ${word}`,
          `${name} ${word} (namerefs, integer variables or functions) changes how later words evaluate; not modeled`,
        );
        return;
      }
      if (word.startsWith("-") && word.includes("x")) exports = true;
      continue;
    }
    if (!exports) continue;
    const variable = /^([^=]+)/.exec(word)?.[1] ?? word;
    if (!isHarmlessEnvName(variable)) {
      sink.opaque(
        `${name} ${word}`,
        `exporting ${variable} passes it to every later program; only locale and display variables are modeled`,
      );
      return;
    }
  }
}

function mapfileCommand(args: Arg[], _stdin: Stdin, sink: CommandSink, _depth: number, name: string): void {
  if (args.some(arg => /^-[a-zA-Z]*C/.test(plain(arg) ?? "") || !arg.evaluated.known))
    sink.opaque(`${name} ${commandText(args)}`, `${name} -C runs a callback as shell code; not modeled`);
}

/** The destination of cp/install (the -t directory or the last operand), which it also reports as a target. */
function copyLike(
  parsed: ParsedOptions,
  command: string,
  kind: TargetKind,
  sink: CommandSink,
): Arg | undefined {
  const dir = optionValues(parsed, "t", "target-directory");
  if (dir.length > 0) {
    targets(dir, "modify", `${command} -t directory`, sink);
    return dir[0];
  }
  const destination = parsed.operands.at(-1);
  if (destination !== undefined) sink.target(destination, kind, `${command} destination`);
  return destination;
}

/** -R together with -L: the recursive walk follows every symlink it meets (chown, chgrp; GNU chmod has no -L). */
function followsLinksRecursively(parsed: ParsedOptions): boolean {
  return hasOption(parsed, "R", "recursive") && hasOption(parsed, "L");
}

function ownerLike(args: Arg[], command: string, sink: CommandSink): void {
  const parsed = parse(args, { long: CHOWN_LONG }, sink, command);
  if (!parsed) return;
  if (followsLinksRecursively(parsed)) {
    sink.opaque(
      `${command} ${commandText(args)}`,
      `${command} -R -L follows symlinks out of the named directories`,
    );
    return;
  }
  const reference = hasOption(parsed, "reference");
  const kind = hasOption(parsed, "h", "no-dereference") ? "remove" : "modify";
  targets(reference ? parsed.operands : parsed.operands.slice(1), kind, `${command} operand`, sink);
}

/**
 * `bash -c 'literal'` is analysed as shell code. A shell reading commands from anywhere else — a script file,
 * standard input (`-s`, a pipe, a here-document, a here-string, even one given to an enclosing `{ …; }`) — and
 * shells started as login or interactive shells (which run the agent-writable ~/.profile, ~/.bashrc) are not
 * modeled. So are options that change how the code is read (-O shopt, -o other than the harmless ones).
 */
function shellCommand(args: Arg[], _stdin: Stdin, sink: CommandSink, _depth: number, name: string): void {
  const refusal = shellOptionsProblem(args, name);
  if (refusal !== undefined) {
    sink.opaque(`${name} ${commandText(args)}`, refusal);
    return;
  }
  const { command, index } = shellOperandIndex(args);
  const operand = args[index];
  if (!command) {
    sink.opaque(
      `${name} ${commandText(args)}`,
      operand === undefined
        ? `${name} reading its commands from standard input (a pipe, here-document or here-string) cannot be analysed`
        : `${name} ${operand.text} runs a script file, whose content is not analysed`,
    );
    return;
  }
  if (operand === undefined) return;
  const source = plain(operand);
  if (source === undefined) sink.opaque(operand.text, "a shell -c string only known at run time");
  else sink.script(source, `${name} -c string`);
}

/** Why a shell's options are not modeled, or undefined. */
function shellOptionsProblem(args: Arg[], name: string): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const text = plain(args[index]!);
    if (text === undefined) return `${name} with an option only known at run time`;
    if (text === "--" || text === "-") return undefined;
    if (["--norc", "--noprofile", "--posix", "--noediting"].includes(text)) continue;
    if (text.startsWith("--"))
      return `${name} ${text} (startup files, login or interactive shells run agent-writable files)`;
    if (!/^[-+]/.test(text)) return undefined;
    for (const letter of text.slice(1)) {
      if (letter === "o" || letter === "O") {
        const option = plain(args[index + 1] ?? literalArg(""));
        index++;
        const harmless = ["errexit", "nounset", "xtrace", "pipefail", "noclobber"];
        if (letter === "o" && harmless.includes(option ?? "")) continue;
        return `${name} -${letter} ${option ?? "?"} changes how the code runs; not modeled`;
      }
      if (!"ceuxvCfnh".includes(letter)) {
        const what = "sil".includes(letter)
          ? "reads commands from standard input or startup files"
          : "an option";
        return `${name} -${letter}: ${what} not modeled`;
      }
    }
  }
  return undefined;
}

/** Whether a shell got -c, and the index of its first operand (the -c string, or a script file). */
function shellOperandIndex(args: Arg[]): { command: boolean; index: number } {
  let command = false;
  for (let index = 0; index < args.length; index++) {
    const text = plain(args[index]!)!;
    if (text === "--" || text === "-") return { command, index: index + 1 };
    if (text.startsWith("--")) continue;
    if (!/^[-+]/.test(text)) return { command, index };
    if (text.slice(1).includes("c")) command = true;
    if (/[oO]/.test(text.slice(1))) index++;
  }
  return { command, index: args.length };
}

/**
 * awk programs write with `print > "file"`, pipe to commands with `|`, and run commands with system(): a program
 * with any of `>`, `|`, `system` or gawk's `@` directives is not modeled (a comparison with > is refused too —
 * write it as `<` the other way round). Program files and gawk's output options are not modeled either.
 */
function awkCommand(args: Arg[], _stdin: Stdin, sink: CommandSink, _depth: number, name: string): void {
  let index = 0;
  let program: Arg | undefined;
  for (; index < args.length; index++) {
    const text = plain(args[index]!);
    if (text === undefined) break;
    if (text === "--") {
      index++;
      break;
    }
    if (text === "-F" || text === "-v") {
      index++;
      continue;
    }
    if (/^-[Fv]./.test(text)) continue;
    if (text === "-e" || text === "--source") {
      program = args[++index];
      continue;
    }
    if (text.startsWith("-")) {
      sink.opaque(
        `${name} ${commandText(args)}`,
        `${name} ${text}: program files and output options (profile, dump, pretty-print, -W) are not modeled`,
      );
      return;
    }
    break;
  }
  program ??= args[index];
  if (program === undefined) return;
  const source = plain(program);
  if (source === undefined) {
    sink.opaque(program.text, `an ${name} program only known at run time`);
    return;
  }
  if (/[>|@]|\bsystem\b/.test(source)) {
    sink.opaque(
      program.text,
      `the ${name} program can write files or run commands (>, |, system or @ directives); not modeled`,
    );
  }
}

function findCommand(args: Arg[], _stdin: Stdin, sink: CommandSink, depth: number): void {
  let index = 0;
  let followsLinks = false;
  while (index < args.length && /^-[HLP]$|^-O\d*$/.test(plain(args[index]!) ?? "")) {
    if (plain(args[index]!) === "-L") followsLinks = true;
    if (plain(args[index]!) === "-P") followsLinks = false;
    index++;
  }
  if (args.some(arg => plain(arg) === "-follow")) followsLinks = true;
  const acts = args.some(arg =>
    /^-(delete|exec|execdir|ok|okdir|fprint0?|fls|fprintf)$/.test(plain(arg) ?? ""),
  );
  if (followsLinks && acts) {
    sink.opaque(`find ${commandText(args)}`, "find -L / -follow reaches files through symlinks anywhere");
    return;
  }
  if (acts && args.some(arg => plain(arg) === "-files0-from")) {
    sink.opaque(`find ${commandText(args)}`, "find -files0-from takes its start points from a file");
    return;
  }
  if (args.some(arg => !arg.evaluated.known)) {
    sink.opaque(
      `find ${commandText(args)}`,
      "a find argument only known at run time (it could be an action)",
    );
    return;
  }
  if (plain(args[index] ?? literalArg("")) === "-D") index += 2;
  const starts: Arg[] = [];
  for (; index < args.length; index++) {
    const text = plain(args[index]!);
    if (text !== undefined && (/^[-(!)]/.test(text) || text === ",")) break;
    starts.push(args[index]!);
  }
  if (starts.length === 0) starts.push(literalArg(".", "(current directory)"));
  for (; index < args.length; index++) {
    const text = plain(args[index]!);
    if (text === "-delete") targets(starts, "modify", "find -delete (every file under the start path)", sink);
    else if (text === "-fprint" || text === "-fprint0" || text === "-fls" || text === "-fprintf") {
      const file = args[index + 1];
      if (file !== undefined) sink.target(file, "content", `find ${text}`);
      index += text === "-fprintf" ? 2 : 1;
    } else if (text === "-exec" || text === "-execdir" || text === "-ok" || text === "-okdir") {
      const end = args.findIndex((arg, at) => at > index && (plain(arg) === ";" || plain(arg) === "+"));
      const inner = args.slice(index + 1, end === -1 ? undefined : end);
      index = end === -1 ? args.length : end;
      const runInner = () => {
        for (const start of starts)
          analyzeArgv(
            inner.map(arg => substituteBraces(arg, start)),
            { kind: "none" },
            sink,
            depth + 1,
          );
      };
      if (text.endsWith("dir"))
        sink.withUnknownCwd(`find ${text} runs the command in each file's directory`, runInner);
      else runInner();
    }
  }
}

/** find -exec's `{}` names a file under the start path: "{}" becomes "<start>/{}". */
function substituteBraces(arg: Arg, start: Arg): Arg {
  if (!arg.text.includes("{}")) return arg;
  const value = plain(arg);
  const base = plain(start);
  if (value === undefined || base === undefined)
    return unknownArg(arg.text, "a find -exec argument built from an unknown start path");
  return literalArg(value.split("{}").join(`${base}/{}`), arg.text);
}

/** The commands the analyser models at all (for documentation and tests). */
export function modeledCommands(): string[] {
  return [...READ_ONLY, ...Object.keys(HANDLERS)].sort();
}
