import { basename } from "node:path";
import {
  type Arg,
  hasOption,
  literalArg,
  optionValues,
  parseOptions,
  plain,
  stripPrefix,
  unknownArg,
} from "./args.js";

/**
 * The command table of Bash write detection: which arguments of which commands are written. Wrappers
 * (env, sudo, xargs, nice, timeout, …) are peeled off and the wrapped command is analysed; shells given
 * `-c STRING`, `eval`, `find -exec` and here-documents fed to a shell are analysed as shell code.
 * Anything not listed here is assumed not to write (see the package README for the exact list).
 */

/** content: bytes written into the file (a discard target such as /dev/null is fine). modify: the path
 * itself is created or changed (a symlink is followed). remove: the directory entry itself is removed or
 * renamed (rm, unlink, rmdir, mv's sources), so a symlink as the last component is not followed. link: a
 * link is made to this path, so it must be writable too (otherwise a later write through the link escapes). */
export type TargetKind = "content" | "modify" | "remove" | "link";

export type Stdin =
  | { kind: "none" }
  | { kind: "pipe" }
  | { kind: "file" }
  /** A here-document or here-string; `source` is undefined when it has run-time expansions. */
  | { kind: "text"; source: string | undefined };

export interface CommandSink {
  target(arg: Arg, kind: TargetKind, why: string, linkDirOf?: Arg): void;
  /** Something that cannot be analysed and must not run (denied, fail closed). */
  opaque(text: string, reason: string): void;
  /**
   * Shell code to analyse with the current working directory. `sameShell` (eval, trap) means it runs in the
   * current shell, so its `cd` carries over; otherwise (bash -c, …) it runs in a child.
   */
  script(source: string, why: string, sameShell?: boolean): void;
  /** Analyse `run` with the working directory changed to `dir` (env -C, sudo -D). */
  withCwd(dir: Arg, run: () => void): void;
  /** Analyse `run` with an unknown working directory (find -execdir). */
  withUnknownCwd(reason: string, run: () => void): void;
}

const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);
const MAX_DEPTH = 8;

type Handler = (args: Arg[], stdin: Stdin, sink: CommandSink, depth: number) => void;

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
  const handler = HANDLERS[basename(name)];
  handler?.(args, stdin, sink, depth);
}

/** Runs the wrapped command (the operands of a wrapper) through the table again. */
function wrapped(operands: Arg[], stdin: Stdin, sink: CommandSink, depth: number): void {
  analyzeArgv(operands, stdin, sink, depth + 1);
}

const targets = (args: Arg[], kind: TargetKind, why: string, sink: CommandSink) => {
  for (const arg of args) sink.target(arg, kind, why);
};

const HANDLERS: Record<string, Handler> = {
  // --- wrappers -------------------------------------------------------------------------------------
  env(args, stdin, sink, depth) {
    const parsed = parseOptions(args, {
      short: "uCS",
      long: ["unset", "chdir", "split-string"],
      stopAtOperand: true,
    });
    let rest = parsed.operands;
    while (rest.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(plain(rest[0]!) ?? "")) rest = rest.slice(1);
    for (const split of optionValues(parsed, "S", "split-string")) {
      const source = plain(split);
      if (source === undefined) sink.opaque(split.text, "env -S with a string only known at run time");
      else sink.script([source, ...rest.map(arg => arg.text)].join(" "), "env -S");
    }
    if (optionValues(parsed, "S", "split-string").length > 0) return;
    const dir = optionValues(parsed, "C", "chdir")[0];
    if (dir !== undefined) sink.withCwd(dir, () => wrapped(rest, stdin, sink, depth));
    else wrapped(rest, stdin, sink, depth);
  },
  sudo(args, stdin, sink, depth) {
    const parsed = parseOptions(args, {
      short: "ughpUCDrtTR",
      long: [
        "user",
        "group",
        "host",
        "prompt",
        "other-user",
        "close-from",
        "chdir",
        "role",
        "type",
        "command-timeout",
        "chroot",
      ],
      stopAtOperand: true,
    });
    if (hasOption(parsed, "s", "shell", "i", "login") && parsed.operands.length > 0) {
      const words = parsed.operands.map(plain);
      if (words.some(word => word === undefined))
        sink.opaque(args.map(arg => arg.text).join(" "), "sudo -s/-i with arguments only known at run time");
      else sink.script(words.join(" "), "sudo -s");
      return;
    }
    const dir = optionValues(parsed, "D", "chdir")[0];
    if (dir !== undefined) sink.withCwd(dir, () => wrapped(parsed.operands, stdin, sink, depth));
    else wrapped(parsed.operands, stdin, sink, depth);
  },
  doas: (args, stdin, sink, depth) =>
    wrapped(parseOptions(args, { short: "uC", stopAtOperand: true }).operands, stdin, sink, depth),
  nice: (args, stdin, sink, depth) =>
    wrapped(
      parseOptions(args, { short: "n", long: ["adjustment"], stopAtOperand: true }).operands,
      stdin,
      sink,
      depth,
    ),
  nohup: (args, stdin, sink, depth) =>
    wrapped(parseOptions(args, { stopAtOperand: true }).operands, stdin, sink, depth),
  setsid: (args, stdin, sink, depth) =>
    wrapped(parseOptions(args, { stopAtOperand: true }).operands, stdin, sink, depth),
  stdbuf: (args, stdin, sink, depth) =>
    wrapped(
      parseOptions(args, { short: "ioe", long: ["input", "output", "error"], stopAtOperand: true }).operands,
      stdin,
      sink,
      depth,
    ),
  ionice: (args, stdin, sink, depth) =>
    wrapped(
      parseOptions(args, {
        short: "cnpPu",
        long: ["class", "classdata", "pid", "pgid", "uid"],
        stopAtOperand: true,
      }).operands,
      stdin,
      sink,
      depth,
    ),
  timeout(args, stdin, sink, depth) {
    const parsed = parseOptions(args, { short: "sk", long: ["signal", "kill-after"], stopAtOperand: true });
    wrapped(parsed.operands.slice(1), stdin, sink, depth); // the first operand is the duration
  },
  time(args, stdin, sink, depth) {
    const parsed = parseOptions(args, { short: "fo", long: ["format", "output"], stopAtOperand: true });
    targets(optionValues(parsed, "o", "output"), "content", "time -o", sink);
    wrapped(parsed.operands, stdin, sink, depth);
  },
  command(args, stdin, sink, depth) {
    const parsed = parseOptions(args, { stopAtOperand: true });
    if (hasOption(parsed, "v", "V")) return; // only looks the name up
    wrapped(parsed.operands, stdin, sink, depth);
  },
  builtin: (args, stdin, sink, depth) => wrapped(args, stdin, sink, depth),
  exec: (args, stdin, sink, depth) =>
    wrapped(parseOptions(args, { short: "a", stopAtOperand: true }).operands, stdin, sink, depth),
  busybox: (args, stdin, sink, depth) => wrapped(args, stdin, sink, depth),
  xargs(args, _stdin, sink, depth) {
    const parsed = parseOptions(args, {
      short: "adEILnPs",
      optionalShort: "eil",
      long: [
        "arg-file",
        "delimiter",
        "eof",
        "replace",
        "max-lines",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
      ],
      stopAtOperand: true,
    });
    if (parsed.operands.length === 0) return; // echo
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
    const parsed = parseOptions(args, {
      short: "wEc",
      long: ["timeout", "conflict-exit-code", "command"],
      stopAtOperand: true,
    });
    const [lockFile, ...rest] = parsed.operands;
    if (lockFile !== undefined) sink.target(lockFile, "modify", "flock lock file");
    for (const command of optionValues(parsed, "c", "command")) {
      const source = plain(command);
      if (source === undefined) sink.opaque(command.text, "flock -c with a command only known at run time");
      else sink.script(source, "flock -c");
    }
    if (optionValues(parsed, "c", "command").length === 0) wrapped(rest, stdin, sink, depth);
  },

  // --- shell code -----------------------------------------------------------------------------------
  eval(args, _stdin, sink) {
    const words = args.map(plain);
    if (words.some(word => word === undefined))
      sink.opaque(`eval ${args.map(arg => arg.text).join(" ")}`, "eval of a string only known at run time");
    else sink.script(words.join(" "), "eval", true);
  },
  trap(args, _stdin, sink) {
    const parsed = parseOptions(args, { stopAtOperand: true });
    const action = parsed.operands[0];
    if (action === undefined || parsed.operands.length < 2) return; // trap -p, trap -l, trap SIGNAL (reset)
    const source = plain(action);
    if (source === undefined) sink.opaque(action.text, "a trap action only known at run time");
    else if (source !== "" && source !== "-") sink.script(source, "trap action", true);
  },
  su(args, _stdin, sink) {
    const parsed = parseOptions(args, {
      short: "cgGsw",
      long: ["command", "group", "supp-group", "shell", "whitelist-environment"],
    });
    for (const command of optionValues(parsed, "c", "command")) {
      const source = plain(command);
      if (source === undefined) sink.opaque(command.text, "su -c with a command only known at run time");
      else sink.script(source, "su -c");
    }
  },
  watch(args, _stdin, sink) {
    const parsed = parseOptions(args, {
      short: "nd",
      long: ["interval", "differences"],
      stopAtOperand: true,
    });
    const words = parsed.operands.map(plain);
    if (words.some(word => word === undefined))
      sink.opaque(args.map(arg => arg.text).join(" "), "a watch command only known at run time");
    else if (words.length > 0) sink.script(words.join(" "), "watch command");
  },

  // --- writes ---------------------------------------------------------------------------------------
  rm: (args, _stdin, sink) => targets(parseOptions(args, {}).operands, "remove", "rm operand", sink),
  rmdir: (args, _stdin, sink) => targets(parseOptions(args, {}).operands, "remove", "rmdir operand", sink),
  unlink: (args, _stdin, sink) => targets(parseOptions(args, {}).operands, "remove", "unlink operand", sink),
  shred: (args, _stdin, sink) =>
    targets(
      parseOptions(args, { short: "ns", long: ["iterations", "size"] }).operands,
      "modify",
      "shred operand",
      sink,
    ),
  touch: (args, _stdin, sink) =>
    targets(
      parseOptions(args, { short: "dtr", long: ["date", "reference", "time"] }).operands,
      "modify",
      "touch operand",
      sink,
    ),
  mkdir: (args, _stdin, sink) =>
    targets(
      parseOptions(args, { short: "mZ", long: ["mode", "context"] }).operands,
      "modify",
      "mkdir operand",
      sink,
    ),
  mkfifo: (args, _stdin, sink) =>
    targets(
      parseOptions(args, { short: "mZ", long: ["mode", "context"] }).operands,
      "modify",
      "mkfifo operand",
      sink,
    ),
  mknod: (args, _stdin, sink) =>
    targets(
      parseOptions(args, { short: "mZ", long: ["mode", "context"] }).operands.slice(0, 1),
      "modify",
      "mknod operand",
      sink,
    ),
  tee: (args, _stdin, sink) =>
    targets(parseOptions(args, { long: [] }).operands, "content", "tee operand", sink),
  truncate: (args, _stdin, sink) =>
    targets(
      parseOptions(args, { short: "sr", long: ["size", "reference"] }).operands,
      "modify",
      "truncate operand",
      sink,
    ),
  cp(args, _stdin, sink) {
    const parsed = parseOptions(args, { short: "tS", long: ["target-directory", "suffix"] });
    copyLike(parsed, "cp", "content", sink);
    if (hasOption(parsed, "l", "link", "s", "symbolic-link")) {
      const sources = hasOption(parsed, "t", "target-directory")
        ? parsed.operands
        : parsed.operands.slice(0, -1);
      targets(sources, "link", "cp --link/--symbolic-link source", sink);
    }
  },
  mv(args, _stdin, sink) {
    const parsed = parseOptions(args, { short: "tS", long: ["target-directory", "suffix"] });
    // Sources are removed from where they are, so they must be writable too.
    const dir = optionValues(parsed, "t", "target-directory");
    targets(dir.length > 0 ? parsed.operands : parsed.operands.slice(0, -1), "remove", "mv source", sink);
    targets(dir.length > 0 ? dir : parsed.operands.slice(-1), "modify", "mv destination", sink);
  },
  ln(args, _stdin, sink) {
    const parsed = parseOptions(args, { short: "tS", long: ["target-directory", "suffix"] });
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
    for (const source of sources)
      sink.target(source, "link", symbolic ? "ln -s target" : "ln target", symbolic ? link : undefined);
  },
  install(args, _stdin, sink) {
    const parsed = parseOptions(args, {
      short: "gmoSt",
      long: ["group", "mode", "owner", "suffix", "target-directory", "strip-program"],
    });
    if (hasOption(parsed, "d", "directory")) targets(parsed.operands, "modify", "install -d operand", sink);
    else copyLike(parsed, "install", "modify", sink);
  },
  sed(args, _stdin, sink) {
    const parsed = parseOptions(args, {
      short: "efl",
      optionalShort: "i",
      long: ["expression", "file", "line-length"],
    });
    if (!hasOption(parsed, "i", "in-place")) return;
    const hasScript = hasOption(parsed, "e", "expression", "f", "file");
    targets(hasScript ? parsed.operands : parsed.operands.slice(1), "modify", "sed -i file", sink);
  },
  dd(args, _stdin, sink) {
    for (const arg of args)
      if ((plain(arg) ?? arg.text).startsWith("of="))
        sink.target(stripPrefix(arg, "of="), "content", "dd of=");
  },
  chmod(args, _stdin, sink) {
    // A mode such as -w or -x looks like an option: take any dash word made of mode characters as the mode.
    const isMode = (arg: Arg) => /^-[rwxXstugoa0-7,+=-]+$/.test(plain(arg) ?? "");
    const mode = args.find(isMode);
    const parsed = parseOptions(
      args.filter(arg => arg !== mode),
      {},
    );
    const reference = parsed.options.some(option => option.name === "reference");
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
  curl(args, _stdin, sink) {
    const parsed = parseOptions(args, {
      short: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
      long: ["output", "dump-header", "cookie-jar", "output-dir", "trace", "trace-ascii", "stderr", "config"],
    });
    const files = optionValues(
      parsed,
      "o",
      "output",
      "D",
      "dump-header",
      "c",
      "cookie-jar",
      "trace",
      "trace-ascii",
      "stderr",
    );
    targets(
      files.filter(file => plain(file) !== "-"),
      "content",
      "curl output file",
      sink,
    );
    if (hasOption(parsed, "O", "remote-name", "remote-name-all")) {
      sink.target(
        optionValues(parsed, "output-dir")[0] ?? literalArg(".", "(current directory)"),
        "modify",
        "curl -O into the directory",
      );
    }
  },
  wget(args, _stdin, sink) {
    const parsed = parseOptions(args, {
      short: "aBeiOoPQTtUwYlDIXAR",
      long: ["output-document", "output-file", "append-output", "directory-prefix"],
    });
    const files = optionValues(parsed, "O", "output-document", "o", "output-file", "a", "append-output");
    targets(
      files.filter(file => plain(file) !== "-"),
      "content",
      "wget output file",
      sink,
    );
    if (optionValues(parsed, "O", "output-document").length === 0) {
      sink.target(
        optionValues(parsed, "P", "directory-prefix")[0] ?? literalArg(".", "(current directory)"),
        "modify",
        "wget download directory",
      );
    }
  },
  tar: tarCommand,
};

for (const shell of SHELLS) HANDLERS[shell] = shellCommand;

function copyLike(
  parsed: ReturnType<typeof parseOptions>,
  command: string,
  kind: TargetKind,
  sink: CommandSink,
): void {
  const dir = optionValues(parsed, "t", "target-directory");
  if (dir.length > 0) targets(dir, "modify", `${command} -t directory`, sink);
  else if (parsed.operands.length > 0) sink.target(parsed.operands.at(-1)!, kind, `${command} destination`);
}

/** -R together with -L: the recursive walk follows every symlink it meets (chown, chgrp; GNU chmod has no -L). */
function followsLinksRecursively(args: Arg[]): boolean {
  const flags = args
    .map(plain)
    .filter((word): word is string => word !== undefined && /^-[A-Za-z]+$/.test(word))
    .join("");
  return (flags.includes("R") || args.some(arg => plain(arg) === "--recursive")) && flags.includes("L");
}

function ownerLike(args: Arg[], command: string, sink: CommandSink): void {
  if (followsLinksRecursively(args)) {
    sink.opaque(
      `${command} ${args.map(arg => arg.text).join(" ")}`,
      `${command} -R -L follows symlinks out of the named directories`,
    );
    return;
  }
  const parsed = parseOptions(args, { long: ["from"] });
  const reference = parsed.options.some(option => option.name === "reference");
  targets(reference ? parsed.operands : parsed.operands.slice(1), "modify", `${command} operand`, sink);
}

function shellCommand(args: Arg[], stdin: Stdin, sink: CommandSink): void {
  let command = false;
  let index = 0;
  for (; index < args.length; index++) {
    const text = plain(args[index]!);
    if (text === undefined) break;
    if (text === "--" || text === "-") {
      index++;
      break;
    }
    if (text === "--rcfile" || text === "--init-file") {
      index++;
      continue;
    }
    if (text.startsWith("--")) continue;
    if (!/^[-+]/.test(text)) break;
    const letters = text.slice(1);
    if (letters.includes("c")) command = true;
    if (/[oO]$/.test(letters)) index++; // -o option / -O shopt take the next word
  }
  const operand = args[index];
  if (command) {
    if (operand === undefined) return;
    const source = plain(operand);
    if (source === undefined) sink.opaque(operand.text, "a shell -c string only known at run time");
    else sink.script(source, "shell -c string");
    return;
  }
  if (operand !== undefined) return; // a script file: not analysed (README)
  if (stdin.kind === "text") {
    if (stdin.source === undefined)
      sink.opaque("<<", "a here-document with run-time expansions fed to a shell");
    else sink.script(stdin.source, "here-document fed to a shell");
  } else if (stdin.kind === "pipe") {
    sink.opaque("| sh", "a shell reading its commands from a pipe cannot be analysed");
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
    sink.opaque(
      `find ${args.map(arg => arg.text).join(" ")}`,
      "find -L / -follow reaches files through symlinks anywhere",
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

function tarCommand(args: Arg[], _stdin: Stdin, sink: CommandSink): void {
  const valueLetters = "fCbTXKNgFLVH";
  let rest = args;
  const letters: string[] = [];
  const values = new Map<string, Arg>();
  // Old style: "tar xzf FILE" — a first word without a dash is a cluster whose value letters take the next words.
  const first = plain(args[0] ?? literalArg("-"));
  if (first !== undefined && !first.startsWith("-")) {
    let next = 1;
    for (const letter of first) {
      letters.push(letter);
      if (valueLetters.includes(letter) && next < args.length) values.set(letter, args[next++]!);
    }
    rest = args.slice(next);
  }
  const parsed = parseOptions(rest, { short: valueLetters, long: ["file", "directory"] });
  for (const option of parsed.options) {
    letters.push(option.name);
    if (option.value !== undefined)
      values.set(option.name.length === 1 ? option.name : option.name === "file" ? "f" : "C", option.value);
  }
  const has = (...names: string[]) => names.some(name => letters.includes(name));
  const archive = values.get("f");
  if (
    has("c", "r", "u", "A", "create", "append", "update", "concatenate", "delete") &&
    archive &&
    plain(archive) !== "-"
  ) {
    sink.target(archive, "content", "tar archive file");
  }
  if (has("x", "extract", "get")) {
    sink.target(
      values.get("C") ?? literalArg(".", "(current directory)"),
      "modify",
      "tar extraction directory",
    );
  }
}
