import { isAbsolute, resolve } from "node:path";
import type * as Unbash from "unbash";
import { type Arg, literalArg, plain, wordArg } from "./args.js";
import { analyzeArgv, type Stdin, type TargetKind } from "./commands.js";
import { staticValue, type WordEnv } from "./words.js";

/**
 * Finds the file-system writes a Bash command would make, from its syntax tree (unbash), without running it.
 *
 * The walk follows what bash does: redirections (opened before the command runs, in its working directory),
 * the command table for each simple command (commands.ts), and every nested piece of shell code — `&&`, `||`,
 * `;`, pipelines, `( )`, `{ }`, `$( )`, backticks, `<( )`/`>( )`, if/while/for/case bodies, function bodies.
 *
 * The working directory is tracked as a set of possible directories: `cd DIR` in a `;` sequence may fail, so
 * afterwards both the old and the new directory are possible; `cd DIR && …` runs the rest only in DIR.
 * A `cd` whose target is not static (`cd $X`, `cd -`, popd) makes the directory unknown, and then every
 * relative write target is denied. Subshells, pipeline stages and command substitutions get a copy, so their
 * `cd` does not leak out. Function bodies are analysed with an unknown directory (they may be called from
 * anywhere), and a loop whose body changes directory makes it unknown (each iteration moves again).
 */

export type CwdState = { dirs: string[] } | { unknown: string };

export interface FoundTarget {
  type: "target";
  arg: Arg;
  kind: TargetKind;
  why: string;
  cwd: CwdState;
  /** For `ln -s`: the link's own path, against whose directory a relative link target resolves. */
  linkDirOf?: { arg: Arg; cwd: CwdState };
}

export interface FoundOpaque {
  type: "opaque";
  text: string;
  reason: string;
}

export type Finding = FoundTarget | FoundOpaque;

export interface AnalyzeOptions {
  cwd: string;
  home: string | undefined;
  /** The CDPATH of the tool's environment: when set, `cd name` is not necessarily ./name. */
  cdpath?: string | undefined;
  /** unbash's parse and forEachChild, loaded lazily by the Bash tool (see bash/parser.ts). */
  parser: ShellParser;
}

export interface ShellParser {
  parse(source: string): Unbash.ParsedScript;
  forEachChild(node: Unbash.SyntaxNode, callback: (child: Unbash.SyntaxNode) => void): void;
}

const MAX_SCRIPT_DEPTH = 8;

interface State {
  cwd: CwdState;
}

export function findWrites(command: string, options: AnalyzeOptions): Finding[] {
  const analyzer = new Analyzer(options);
  analyzer.source(command, { cwd: { dirs: [options.cwd] } }, 0, "command");
  return analyzer.findings;
}

class Analyzer {
  readonly findings: Finding[] = [];
  private readonly tainted = new Set<string>();

  constructor(private readonly options: AnalyzeOptions) {}

  source(text: string, state: State, depth: number, what: string): void {
    if (depth > MAX_SCRIPT_DEPTH) {
      this.opaque(text, `${what} nests shell code too deeply to analyse`);
      return;
    }
    const script = this.options.parser.parse(text);
    if (script.errors && script.errors.length > 0) {
      const first = script.errors[0]!;
      this.opaque(text, `the ${what} could not be parsed (${first.message} at offset ${first.pos})`);
      return;
    }
    this.collectTaint(script);
    this.list(script.commands, state, depth);
  }

  private opaque(text: string, reason: string): void {
    this.findings.push({ type: "opaque", text, reason });
  }

  private env(state: State): WordEnv {
    const dirs = "dirs" in state.cwd ? state.cwd.dirs : [];
    return { home: this.options.home, pwd: dirs.length === 1 ? dirs[0] : undefined, tainted: this.tainted };
  }

  private list(statements: readonly Unbash.Statement[], state: State, depth: number): void {
    for (const statement of statements) {
      if (statement.background) this.node(statement.command, copy(state), depth);
      else this.node(statement.command, state, depth);
    }
  }

  private children(node: Unbash.SyntaxNode, callback: (child: Unbash.SyntaxNode) => void): void {
    this.options.parser.forEachChild(node, callback);
  }

  /**
   * Variables the command sets (`HOME=… cmd`, `export HOME=…`, `env HOME=…`, `read HOME`, `unset PWD`): their
   * environment value can no longer be trusted to expand `~`, `$HOME` or `$PWD` in a write target.
   */
  private collectTaint(node: Unbash.SyntaxNode): void {
    const visit = (current: Unbash.SyntaxNode) => {
      if (current.type === "Assignment") this.tainted.add(current.name);
      if (current.type === "Word") {
        const match = /^([A-Za-z_][A-Za-z0-9_]*)(\+?=|$)/.exec(current.value);
        if (match && (match[1] === "HOME" || match[1] === "PWD" || match[2] !== ""))
          this.tainted.add(match[1]!);
      }
      this.children(current, visit);
    };
    visit(node);
  }

  private node(
    node: Unbash.PipelineNode | Unbash.AndOr | Unbash.CompoundList,
    state: State,
    depth: number,
    inPipe = false,
  ): void {
    switch (node.type) {
      case "CompoundList":
        this.list(node.commands, state, depth);
        return;
      case "AndOr":
        this.andOr(node, state, depth);
        return;
      case "Pipeline":
        if (node.commands.length === 1) this.node(node.commands[0]!, state, depth);
        else {
          // Every stage of a real pipeline runs in its own subshell; stages after the first read a pipe.
          for (const [index, command] of node.commands.entries())
            this.node(command, copy(state), depth, index > 0);
        }
        return;
      case "Command":
        this.command(node, state, depth, inPipe);
        return;
      case "Redirected":
        this.redirects(node.redirects, state, depth);
        this.node(node.command, state, depth);
        return;
      case "Subshell":
        this.list(node.body.commands, copy(state), depth);
        return;
      case "BraceGroup":
        this.list(node.body.commands, state, depth);
        return;
      case "Function":
        this.node(
          node.body,
          { cwd: { unknown: "inside a function body, which may run from any directory" } },
          depth,
        );
        return;
      case "For":
      case "Select":
      case "While":
      case "ArithmeticFor":
        this.loop(node, state, depth);
        return;
      default: {
        // if, case, coproc, [[ ]], (( )): may or may not run their parts; afterwards both outcomes are possible.
        const inner = copy(state);
        this.compound(node, inner, depth);
        state.cwd = union(state.cwd, inner.cwd);
      }
    }
  }

  private loop(node: Unbash.SyntaxNode, state: State, depth: number): void {
    const inner = copy(state);
    this.compound(node, inner, depth);
    if (sameCwd(inner.cwd, state.cwd)) return;
    // The body moves: a second iteration starts elsewhere again. Re-check its writes with no known directory.
    const unknown: State = { cwd: { unknown: "after a cd inside a loop" } };
    this.compound(node, unknown, depth);
    state.cwd = unknown.cwd;
  }

  /** Walks any node's children: statement lists as code, everything else for nested command substitutions. */
  private compound(node: Unbash.SyntaxNode, state: State, depth: number): void {
    this.children(node, child => {
      if (child.type === "CompoundList") this.list(child.commands, state, depth);
      else if (isCommandNode(child)) this.node(child, state, depth);
      else if (child.type === "Elif" || child.type === "CaseItem") this.compound(child, state, depth);
      else this.nested(child, state, depth);
    });
  }

  /** Command substitutions, process substitutions and $(( $(…) )) inside words run as subshells. */
  private nested(node: Unbash.SyntaxNode, state: State, depth: number): void {
    if (
      node.type === "CommandExpansion" ||
      node.type === "ProcessSubstitution" ||
      node.type === "ArithmeticCommandExpansion"
    ) {
      const script = node.script;
      if (script === undefined || (script.errors?.length ?? 0) > 0) {
        this.opaque(node.text, "a command substitution could not be parsed");
        return;
      }
      this.collectTaint(script);
      this.list(script.commands, copy(state), depth + 1);
      return;
    }
    this.children(node, child => this.nested(child, state, depth));
  }

  private andOr(node: Unbash.AndOr, state: State, depth: number): void {
    const seen: CwdState[] = [state.cwd];
    let current = state.cwd;
    node.commands.forEach((command, index) => {
      const cd = this.cdTarget(command, { cwd: current });
      const entry: State = { cwd: current };
      seen.push(current);
      this.node(command, entry, depth);
      const after = cd ?? entry.cwd;
      seen.push(after);
      const operator = node.operators[index];
      if (operator === "&&") {
        const certain = cd !== undefined && (index === 0 || node.operators[index - 1] === "&&");
        current = certain ? cd : cd !== undefined ? union(current, cd) : after;
      } else if (operator === "||") {
        current = seen.reduce(union);
      }
    });
    state.cwd = seen.reduce(union);
  }

  private command(node: Unbash.Command, state: State, depth: number, inPipe: boolean): void {
    for (const item of [...node.prefix, ...(node.name ? [node.name] : []), ...node.suffix]) {
      if (item.type !== "Redirect" && item.type !== "HereDoc" && item.type !== "HereString")
        this.nested(item, state, depth);
    }
    this.redirects(node.redirects, state, depth);
    if (node.name === undefined) return;
    const cd = this.cdTarget(node, state);
    if (cd !== undefined) {
      state.cwd = union(state.cwd, cd); // cd may fail: both directories are possible afterwards
      return;
    }
    const env = this.env(state);
    const argv = [node.name, ...node.suffix.filter(isArgument)].map(word => wordArg(asWord(word), env));
    const sinkState = state;
    const analyzer = this;
    const sink = {
      target(arg: Arg, kind: TargetKind, why: string, linkDirOf?: Arg) {
        const found: FoundTarget = { type: "target", arg, kind, why, cwd: sinkState.cwd };
        if (linkDirOf !== undefined) found.linkDirOf = { arg: linkDirOf, cwd: sinkState.cwd };
        analyzer.findings.push(found);
      },
      opaque: (text: string, reason: string) => analyzer.opaque(text, reason),
      script: (source: string, why: string, sameShell?: boolean) =>
        analyzer.source(source, sameShell ? sinkState : copy(sinkState), depth + 1, why),
      withCwd(dir: Arg, run: () => void) {
        const saved = sinkState.cwd;
        sinkState.cwd = changeDir(saved, dir);
        try {
          run();
        } finally {
          sinkState.cwd = saved;
        }
      },
      withUnknownCwd(reason: string, run: () => void) {
        const saved = sinkState.cwd;
        sinkState.cwd = { unknown: reason };
        try {
          run();
        } finally {
          sinkState.cwd = saved;
        }
      },
    };
    analyzeArgv(argv, this.stdin(node, inPipe), sink);
  }

  private redirects(redirects: readonly Unbash.Redirection[], state: State, depth: number): void {
    for (const redirect of redirects) {
      this.nested(redirect, state, depth);
      if (redirect.type !== "Redirect" || redirect.target === undefined) continue;
      const operator = redirect.operator;
      if (operator === "<" || operator === "<&") continue;
      const arg = wordArg(redirect.target, this.env(state));
      if (operator === ">&") {
        const text = plain(arg);
        if (text !== undefined && /^(\d+-?|-)$/.test(text)) continue; // duplicates or closes a descriptor
      }
      this.findings.push({
        type: "target",
        arg,
        kind: "content",
        why: `redirection ${operator}`,
        cwd: state.cwd,
      });
    }
  }

  /** Where standard input of a command comes from (a shell reading a here-document runs it). */
  private stdin(node: Unbash.Command, inPipe: boolean): Stdin {
    let stdin: Stdin = inPipe ? { kind: "pipe" } : { kind: "none" };
    for (const redirect of node.redirects) {
      const fd = redirect.descriptor?.type === "FileDescriptor" ? redirect.descriptor.value : 0;
      if (fd !== 0) continue;
      if (redirect.type === "HereDoc") stdin = { kind: "text", source: hereDocSource(redirect) };
      else if (redirect.type === "HereString") {
        const value = redirect.target
          ? staticValue(redirect.target, { home: undefined, pwd: undefined, tainted: this.tainted })
          : undefined;
        stdin = { kind: "text", source: value };
      } else if (redirect.operator === "<" || redirect.operator === "<>" || redirect.operator === "<&")
        stdin = { kind: "file" };
    }
    return stdin;
  }

  /** The new working directory when `node` is a plain `cd`/`pushd`/`popd`, else undefined. */
  private cdTarget(node: Unbash.SyntaxNode, state: State): CwdState | undefined {
    const command = node.type === "Pipeline" && node.commands.length === 1 ? node.commands[0]! : node;
    if (command.type !== "Command" || command.name === undefined) return undefined;
    const env = this.env(state);
    let words = command.suffix.filter(isArgument).map(word => wordArg(asWord(word), env));
    let name = staticValue(command.name, env);
    // `builtin cd` and `command cd` are cd too.
    while ((name === "builtin" || name === "command") && words.length > 0) {
      name = plain(words[0]!);
      words = words.slice(1);
    }
    if (name !== "cd" && name !== "pushd" && name !== "popd" && name !== "chdir") return undefined;
    if (name === "popd") return { unknown: "after popd" };
    const operands = words.filter(arg => !/^-[LPe@]+$/.test(plain(arg) ?? ""));
    const dir = operands[0];
    if (dir === undefined) {
      if (name === "pushd") return { unknown: "after pushd with no directory (it swaps the stack)" };
      return env.home !== undefined && !this.tainted.has("HOME")
        ? changeDir(state.cwd, literalArg(env.home))
        : { unknown: "after cd with HOME unknown" };
    }
    const target = plain(dir);
    if (target === "-") return { unknown: "after cd - (the previous directory)" };
    if (name === "pushd" && target !== undefined && /^[+-]\d+$/.test(target)) {
      return { unknown: `after pushd ${target} (it rotates the stack)` };
    }
    // With CDPATH set, `cd name` may go to <CDPATH entry>/name instead of ./name.
    const searchesCdpath = target !== undefined && !isAbsolute(target) && !/^\.\.?(\/|$)/.test(target);
    if (searchesCdpath && (this.options.cdpath || this.tainted.has("CDPATH"))) {
      return { unknown: `after cd ${dir.text} (CDPATH is set)` };
    }
    return changeDir(state.cwd, dir);
  }
}

function isCommandNode(node: Unbash.SyntaxNode): node is Unbash.PipelineNode | Unbash.AndOr {
  return [
    "Command",
    "Pipeline",
    "AndOr",
    "Redirected",
    "Subshell",
    "BraceGroup",
    "If",
    "For",
    "Select",
    "While",
    "ArithmeticFor",
    "Case",
    "Function",
    "Coproc",
    "TestCommand",
    "ArithmeticCommand",
  ].includes(node.type);
}

function isArgument(item: Unbash.CommandArgument | Unbash.Redirection): item is Unbash.CommandArgument {
  return item.type === "Word" || item.type === "Assignment";
}

/** Declaration arguments (`export X=1`) are words too; their text is what the command receives. */
function asWord(item: Unbash.CommandArgument): Unbash.Word {
  if (item.type === "Word") return item;
  return { type: "Word", text: item.text, value: item.text, pos: item.pos, end: item.end, parts: undefined };
}

function hereDocSource(doc: Unbash.HereDoc): string | undefined {
  if (doc.delimiter?.quoted) return doc.body.text;
  const parts = doc.body.parts;
  if (parts === undefined) return doc.body.text;
  return parts.every(part => part.type === "Literal")
    ? parts.map(part => (part as Unbash.LiteralPart).value).join("")
    : undefined;
}

function changeDir(from: CwdState, dir: Arg): CwdState {
  const value = plain(dir);
  if (value === undefined) {
    const reason = dir.evaluated.known ? "a glob or brace expansion" : dir.evaluated.reason;
    return { unknown: `after cd ${dir.text} (${reason})` };
  }
  if (isAbsolute(value)) return { dirs: [resolve(value)] };
  if ("unknown" in from) return from;
  return { dirs: from.dirs.map(base => resolve(base, value)) };
}

function union(a: CwdState, b: CwdState): CwdState {
  if ("unknown" in a) return a;
  if ("unknown" in b) return b;
  return { dirs: [...new Set([...a.dirs, ...b.dirs])] };
}

function sameCwd(a: CwdState, b: CwdState): boolean {
  if ("unknown" in a || "unknown" in b) return "unknown" in a && "unknown" in b;
  return a.dirs.length === b.dirs.length && a.dirs.every(dir => b.dirs.includes(dir));
}

function copy(state: State): State {
  return { cwd: state.cwd };
}
