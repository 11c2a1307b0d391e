import { isAbsolute, resolve } from "node:path";
import { resolvePhysical } from "@agent-lattice/core/internal";
import type * as Unbash from "unbash";
import { type Arg, literalArg, plain, wordArg } from "./args.js";
import {
  analyzeArgv,
  BUILTINS,
  isHarmlessEnvName,
  type Stdin,
  type SymlinkInfo,
  type TargetKind,
} from "./commands.js";
import { type ShellFacts, shellFacts } from "./shell-facts.js";
import { staticValue, type WordEnv } from "./words.js";

/**
 * Finds the file-system writes a Bash command would make, from its syntax tree (unbash), without running it — and
 * everything it cannot model.
 *
 * The walk follows what bash does: redirections (opened before the command runs, in its working directory), the
 * command table for each simple command (commands.ts), and every nested piece of shell code — `&&`, `||`, `;`,
 * pipelines, `( )`, `{ }`, `$( )`, backticks, `<( )`/`>( )`, if/while/for/case bodies. Constructs that would let
 * bash run code or resolve names in ways a reading of the text cannot follow are reported as opaque: function
 * definitions, coprocesses, arithmetic over variables the command itself fills (bash evaluates `a[$(…)]` inside
 * them), `${!x}` and `${x@P}`, extended globs, assignments to PATH, PS4 and friends, variables exported to a
 * program, and variable names only known at run time (shell-facts.ts gathers those).
 *
 * The working directory is tracked as a set of possible directories: `cd DIR` in a `;` sequence may fail, so
 * afterwards both the old and the new directory are possible; `cd DIR && …` runs the rest only in DIR. A `cd`
 * through `..` can land lexically or physically (bash falls back to the physical path), so both are kept; `cd -P`
 * is physical. A `cd` whose target is not static (`cd $X`, `cd -`, popd, a bare name while CDPATH may be set)
 * makes the directory unknown, and then every relative write target is denied. Subshells, pipeline stages and
 * command substitutions get a copy, so their `cd` does not leak out; a loop whose body changes directory makes it
 * unknown (each iteration moves again).
 *
 * Findings carry their order and whether they can run concurrently with others (background jobs, pipeline
 * stages, loop bodies), so a write after a command that creates new directory entries (mv, cp -r) can be refused.
 */

export type CwdState = { dirs: string[] } | { unknown: string };

interface Ordered {
  /** Position in analysis order (textual order for sequential code). */
  order: number;
  /** True when this may run concurrently with, or repeatedly around, other findings. */
  concurrent: boolean;
  /** The simple command (or redirected compound) the finding belongs to. */
  command: number;
}

export interface FoundTarget extends Ordered {
  type: "target";
  arg: Arg;
  kind: TargetKind;
  why: string;
  cwd: CwdState;
  /** For `ln -s`: the link's own path (a relative target resolves against its directory) and -r. */
  symlink?: { link: Arg; relative: boolean; cwd: CwdState };
}

export interface FoundOpaque {
  type: "opaque";
  text: string;
  reason: string;
}

export interface FoundEntries extends Ordered {
  type: "entries";
  why: string;
  /** A destination whose existing subtree is written into (cp -r). */
  tree?: { arg: Arg; cwd: CwdState };
}

/** A glob operand of a command whose expansion must not start with "-" (see args.ts optionRisk). */
export interface FoundOptionGlob {
  type: "option-glob";
  arg: Arg;
  command: string;
  cwd: CwdState;
}

export type Finding = FoundTarget | FoundOpaque | FoundEntries | FoundOptionGlob;

export interface AnalyzeOptions {
  cwd: string;
  home: string | undefined;
  /** The CDPATH of the tool's environment: when set, `cd name` is not necessarily ./name. */
  cdpath?: string | undefined;
  /** Why the command search path is unsafe (an entry the agent can write), or undefined. */
  unsafePath?: string | undefined;
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
  concurrent: boolean;
}

export function findWrites(command: string, options: AnalyzeOptions): Finding[] {
  const analyzer = new Analyzer(options);
  analyzer.source(command, { cwd: { dirs: [options.cwd] }, concurrent: false }, 0, "command");
  return analyzer.findings;
}

class Analyzer {
  readonly findings: Finding[] = [];
  private readonly tainted = new Set<string>();
  private readonly unsafeNumeric = new Set<string>();
  private dynamicAssignment = false;
  private order = 0;
  private commandCount = 0;

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
    this.learn(script);
    this.list(script.commands, state, depth);
  }

  /** Gathers what the script assigns, reports what cannot be modeled about it, and checks its syntax. */
  private learn(script: Unbash.Script): void {
    const facts: ShellFacts = shellFacts(script, this.options.parser.forEachChild);
    for (const name of facts.assigned) this.tainted.add(name);
    for (const name of facts.unsafeNumeric) this.unsafeNumeric.add(name);
    if (facts.dynamic !== undefined) this.dynamicAssignment = true;
    for (const problem of facts.problems) this.opaque(problem.text, problem.reason);
    this.syntax(script, facts);
  }

  /** Syntax that lets bash run code the command table never sees. */
  private syntax(script: Unbash.Script, facts: ShellFacts): void {
    const arithmetic = (text: string, where: string) => {
      const reason = this.arithmeticProblem(text, facts);
      if (reason !== undefined) this.opaque(text, `${where}: ${reason}`);
    };
    const visit = (node: Unbash.SyntaxNode) => {
      switch (node.type) {
        case "Function":
          this.opaque(
            `${node.name.text}() …`,
            "a shell function can shadow any command and run from anywhere; write the commands out instead",
          );
          return; // its body is not analysed further: it is refused as a whole
        case "Coproc":
          this.opaque("coproc …", "coprocesses are not modeled");
          return;
        case "ExtendedGlob":
          this.opaque(node.text, "extended globs need shopt -s extglob; not modeled");
          break;
        case "ParameterExpansion":
          if (node.prefix === "!" && node.operation?.type !== "Names")
            this.opaque(
              node.text,
              // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
              "indirect expansion ${!name} reads a variable named at run time; not modeled",
            );
          if (node.operation?.type === "Transform" && /P/.test(node.operation.operand.text))
            this.opaque(
              node.text,
              // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
              "${name@P} expands the value as a prompt, which runs command substitutions",
            );
          if (node.operation?.type === "Slice") {
            arithmetic(node.operation.offset.text, "a substring offset is arithmetic");
            if (node.operation.length)
              arithmetic(node.operation.length.text, "a substring length is arithmetic");
          }
          if (node.index) arithmetic(node.index.text, "an array subscript is arithmetic");
          break;
        case "Assignment":
          if (node.index) arithmetic(node.index.text, "an array subscript is arithmetic");
          break;
        case "ArithmeticExpansion":
          arithmetic(node.text, "arithmetic expansion");
          return;
        case "ArithmeticCommand":
          arithmetic(node.body, "arithmetic command");
          return;
        case "ArithmeticFor":
          for (const part of [node.initialize, node.test, node.update]) {
            if (part) arithmetic(arithmeticText(part, this.options.parser.forEachChild), "arithmetic for");
          }
          visit(node.body);
          return;
        case "TestBinary":
          if (/^-(eq|ne|lt|le|gt|ge)$/.test(node.operator)) {
            arithmetic(node.left.text, `[[ … ${node.operator} … ]] compares arithmetically`);
            arithmetic(node.right.text, `[[ … ${node.operator} … ]] compares arithmetically`);
          }
          break;
        case "Command": {
          const name = node.name ? staticValue(node.name, this.wordEnv(undefined)) : undefined;
          if (name === "let")
            for (const word of node.suffix) if (word.type === "Word") arithmetic(word.text, "let");
          break;
        }
      }
      this.options.parser.forEachChild(node, visit);
    };
    visit(script);
  }

  /** Why bash evaluating `text` as arithmetic could run code, or undefined when it cannot. */
  private arithmeticProblem(text: string, facts: ShellFacts): string | undefined {
    if (/\$\(|`|\$\{[^}]*[^}A-Za-z0-9_]/.test(text.replace(/^\$\(\(|\)\)$/g, "")))
      return "it contains command substitution or an expansion with operators";
    if (/[A-Za-z_][A-Za-z0-9_]*\s*\[/.test(text))
      return "it indexes an array, whose subscript bash evaluates again";
    if (this.dynamicAssignment || facts.dynamic !== undefined)
      return "the command assigns a variable whose name is only known at run time";
    for (const match of text.matchAll(/(?<![0-9#])[A-Za-z_][A-Za-z0-9_]*/g)) {
      if (this.unsafeNumeric.has(match[0])) {
        return `it uses ${match[0]}, which the command sets to text bash would evaluate as an expression (and an expression can run commands)`;
      }
    }
    return undefined;
  }

  private opaque(text: string, reason: string): void {
    this.findings.push({ type: "opaque", text, reason });
  }

  private wordEnv(state: State | undefined): WordEnv {
    const dirs = state && "dirs" in state.cwd ? state.cwd.dirs : [];
    const tainted = this.dynamicAssignment
      ? new Set([...this.tainted, "HOME", "PWD", "CDPATH"])
      : this.tainted;
    return { home: this.options.home, pwd: dirs.length === 1 ? dirs[0] : undefined, tainted };
  }

  private list(statements: readonly Unbash.Statement[], state: State, depth: number): void {
    for (const statement of statements) {
      if (statement.background) this.node(statement.command, { ...copy(state), concurrent: true }, depth);
      else this.node(statement.command, state, depth);
    }
  }

  private children(node: Unbash.SyntaxNode, callback: (child: Unbash.SyntaxNode) => void): void {
    this.options.parser.forEachChild(node, callback);
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
          // Every stage of a real pipeline runs in its own subshell, at the same time; later stages read a pipe.
          for (const [index, command] of node.commands.entries())
            this.node(command, { ...copy(state), concurrent: true }, depth, index > 0);
        }
        return;
      case "Command":
        this.command(node, state, depth, inPipe);
        return;
      case "Redirected":
        this.redirects(node.redirects, state, depth, this.commandCount++);
        this.node(node.command, state, depth, inPipe || hasStdinRedirect(node.redirects));
        return;
      case "Subshell":
        this.list(node.body.commands, copy(state), depth);
        return;
      case "BraceGroup":
        this.list(node.body.commands, state, depth);
        return;
      case "Function":
      case "Coproc":
        return; // refused by syntax(); nothing inside is analysed
      case "For":
      case "Select":
      case "While":
      case "ArithmeticFor":
        this.loop(node, state, depth);
        return;
      default: {
        // if, case, [[ ]], (( )): may or may not run their parts; afterwards both outcomes are possible.
        const inner = copy(state);
        this.compound(node, inner, depth);
        state.cwd = union(state.cwd, inner.cwd);
      }
    }
  }

  private loop(node: Unbash.SyntaxNode, state: State, depth: number): void {
    const inner: State = { ...copy(state), concurrent: true };
    this.compound(node, inner, depth);
    if (sameCwd(inner.cwd, state.cwd)) return;
    // The body moves: a second iteration starts elsewhere again. Re-check its writes with no known directory.
    const unknown: State = { cwd: { unknown: "after a cd inside a loop" }, concurrent: true };
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
      // Process substitutions run alongside the command; command substitutions before it.
      const inner: State = {
        ...copy(state),
        concurrent: state.concurrent || node.type === "ProcessSubstitution",
      };
      this.list(script.commands, inner, depth + 1);
      return;
    }
    this.children(node, child => this.nested(child, state, depth));
  }

  private andOr(node: Unbash.AndOr, state: State, depth: number): void {
    const seen: CwdState[] = [state.cwd];
    let current = state.cwd;
    node.commands.forEach((command, index) => {
      const cd = this.cdTarget(command, { cwd: current, concurrent: state.concurrent });
      const entry: State = { cwd: current, concurrent: state.concurrent };
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
    const id = this.commandCount++;
    for (const item of [...node.prefix, ...(node.name ? [node.name] : []), ...node.suffix]) {
      if (item.type !== "Redirect" && item.type !== "HereDoc" && item.type !== "HereString")
        this.nested(item, state, depth);
    }
    this.redirects(node.redirects, state, depth, id);
    if (node.name === undefined) return;
    const cd = this.cdTarget(node, state);
    if (cd !== undefined) {
      state.cwd = union(state.cwd, cd); // cd may fail: both directories are possible afterwards
      return;
    }
    const env = this.wordEnv(state);
    const name = staticValue(node.name, env);
    if (name !== undefined && !BUILTINS.has(name)) {
      if (this.options.unsafePath !== undefined && !name.includes("/")) {
        this.opaque(name, `the command search path is unsafe: ${this.options.unsafePath}`);
        return;
      }
      for (const item of node.prefix) {
        if (item.type === "Assignment" && !isHarmlessEnvName(item.name)) {
          this.opaque(
            item.text,
            `${item.name} is passed to ${name}'s environment; variables such as LD_PRELOAD or TMPDIR change what a ` +
              "program does, so only locale and display variables are modeled",
          );
        }
      }
    }
    const argv = [node.name, ...node.suffix.filter(isArgument)].map(word => wordArg(asWord(word), env));
    const sinkState = state;
    const analyzer = this;
    const ordered = (): Ordered => ({
      order: analyzer.order++,
      concurrent: sinkState.concurrent,
      command: id,
    });
    const sink = {
      target(arg: Arg, kind: TargetKind, why: string, symlink?: SymlinkInfo) {
        const found: FoundTarget = { type: "target", arg, kind, why, cwd: sinkState.cwd, ...ordered() };
        if (symlink !== undefined) found.symlink = { ...symlink, cwd: sinkState.cwd };
        analyzer.findings.push(found);
      },
      opaque: (text: string, reason: string) => analyzer.opaque(text, reason),
      script: (source: string, why: string, sameShell?: boolean) =>
        analyzer.source(source, sameShell ? sinkState : copy(sinkState), depth + 1, why),
      withCwd(dir: Arg, run: () => void) {
        const saved = sinkState.cwd;
        sinkState.cwd = changeDir(saved, dir, "logical");
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
      optionGlob(arg: Arg, command: string) {
        analyzer.findings.push({ type: "option-glob", arg, command, cwd: sinkState.cwd });
      },
      entries(why: string, tree?: Arg) {
        const found: FoundEntries = { type: "entries", why, ...ordered() };
        if (tree !== undefined) found.tree = { arg: tree, cwd: sinkState.cwd };
        analyzer.findings.push(found);
      },
    };
    analyzeArgv(argv, this.stdin(node, inPipe), sink);
  }

  private redirects(
    redirects: readonly Unbash.Redirection[],
    state: State,
    depth: number,
    command: number,
  ): void {
    for (const redirect of redirects) {
      this.nested(redirect, state, depth);
      if (redirect.descriptor?.type === "FileDescriptorVariable") {
        this.opaque(redirect.descriptor.name, "a {var}> redirection assigns a descriptor number at run time");
      }
      if (redirect.type !== "Redirect" || redirect.target === undefined) continue;
      const operator = redirect.operator;
      if (operator === "<" || operator === "<&") continue;
      const arg = wordArg(redirect.target, this.wordEnv(state));
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
        order: this.order++,
        concurrent: state.concurrent,
        command,
      });
    }
  }

  /** Where standard input of a command comes from (a shell reading a here-document runs it). */
  private stdin(node: Unbash.Command, inPipe: boolean): Stdin {
    let stdin: Stdin = inPipe ? { kind: "pipe" } : { kind: "none" };
    for (const redirect of node.redirects) {
      const fd = redirect.descriptor?.type === "FileDescriptor" ? redirect.descriptor.value : 0;
      if (fd !== 0) continue;
      if (redirect.type === "HereDoc") stdin = { kind: "text", source: undefined };
      else if (redirect.type === "HereString") stdin = { kind: "text", source: undefined };
      else if (redirect.operator === "<" || redirect.operator === "<>" || redirect.operator === "<&")
        stdin = { kind: "file" };
    }
    return stdin;
  }

  /** The new working directory when `node` is a plain `cd`/`pushd`/`popd`, else undefined. */
  private cdTarget(node: Unbash.SyntaxNode, state: State): CwdState | undefined {
    const command = node.type === "Pipeline" && node.commands.length === 1 ? node.commands[0]! : node;
    if (command.type !== "Command" || command.name === undefined) return undefined;
    const env = this.wordEnv(state);
    let words = command.suffix.filter(isArgument).map(word => wordArg(asWord(word), env));
    let name = staticValue(command.name, env);
    // `builtin cd`, `builtin -- cd`, `command cd`, `command -p cd` are cd too.
    while ((name === "builtin" || name === "command") && words.length > 0) {
      while (words.length > 0 && /^(--|-p)$/.test(plain(words[0]!) ?? "")) words = words.slice(1);
      if (words.length === 0) return undefined;
      name = plain(words[0]!);
      words = words.slice(1);
    }
    if (name !== "cd" && name !== "pushd" && name !== "popd" && name !== "chdir") return undefined;
    if (name === "popd") return { unknown: "after popd" };
    let physical = false;
    let index = 0;
    for (; index < words.length; index++) {
      const word = plain(words[index]!);
      if (word === "--") {
        index++;
        break;
      }
      if (word === undefined || !/^-[LPe@]+$/.test(word)) break;
      physical = word.lastIndexOf("P") > word.lastIndexOf("L");
    }
    const dir = words[index];
    if (words.length > index + 1) return { unknown: `after ${name} with more than one directory` };
    if (dir === undefined) {
      if (name === "pushd") return { unknown: "after pushd with no directory (it swaps the stack)" };
      return env.home !== undefined && !env.tainted.has("HOME")
        ? changeDir(state.cwd, literalArg(env.home), physical ? "physical" : "logical")
        : { unknown: "after cd with HOME unknown" };
    }
    const target = plain(dir);
    if (target === "-") return { unknown: "after cd - (the previous directory)" };
    if (name === "pushd" && target !== undefined && /^[+-]\d+$/.test(target)) {
      return { unknown: `after pushd ${target} (it rotates the stack)` };
    }
    // With CDPATH set, `cd name` may go to <CDPATH entry>/name instead of ./name.
    const searchesCdpath = target !== undefined && !isAbsolute(target) && !/^\.\.?(\/|$)/.test(target);
    if (searchesCdpath && (this.options.cdpath || env.tainted.has("CDPATH"))) {
      return { unknown: `after cd ${dir.text} (CDPATH may be set)` };
    }
    return changeDir(state.cwd, dir, physical ? "physical" : "logical");
  }
}

/** The source text of an arithmetic expression tree (its words, joined). */
function arithmeticText(
  node: Unbash.SyntaxNode,
  forEachChild: (node: Unbash.SyntaxNode, callback: (child: Unbash.SyntaxNode) => void) => void,
): string {
  const words: string[] = [];
  const visit = (current: Unbash.SyntaxNode) => {
    if (current.type === "ArithmeticWord") words.push(current.value);
    else if (current.type === "ArithmeticCommandExpansion") words.push(current.text);
    forEachChild(current, visit);
  };
  visit(node);
  return words.join(" ");
}

function hasStdinRedirect(redirects: readonly Unbash.Redirection[]): boolean {
  return redirects.some(redirect => {
    const fd = redirect.descriptor?.type === "FileDescriptor" ? redirect.descriptor.value : 0;
    return fd === 0 && (redirect.type !== "Redirect" || redirect.operator.startsWith("<"));
  });
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

/**
 * The directories after `cd DIR`. Logical (bash's default) normalises `..` lexically, but when that place does not
 * exist bash retries the path physically — so with `..` both are possible. `cd -P` is physical only. Directories
 * under /proc and /dev name the host's own process view, not the command's: unknown.
 */
function changeDir(from: CwdState, dir: Arg, mode: "logical" | "physical"): CwdState {
  const value = plain(dir);
  if (value === undefined) {
    const reason = dir.evaluated.known ? "a glob or brace expansion" : dir.evaluated.reason;
    return { unknown: `after cd ${dir.text} (${reason})` };
  }
  if (!isAbsolute(value) && "unknown" in from) return from;
  const bases = isAbsolute(value) ? ["/"] : "dirs" in from ? from.dirs : [];
  const out = new Set<string>();
  for (const base of bases) {
    const joined = isAbsolute(value) ? value : `${base}/${value}`;
    if (mode === "logical") out.add(resolve(joined));
    if (mode === "physical" || value.split("/").includes("..")) {
      try {
        out.add(resolvePhysical(joined));
      } catch {
        return { unknown: `after cd ${dir.text} (the directory cannot be resolved)` };
      }
    }
  }
  for (const candidate of out) {
    if (/^\/(proc|dev)(\/|$)/.test(candidate))
      return { unknown: `after cd ${dir.text} (under /proc or /dev)` };
  }
  return { dirs: [...out] };
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
  return { cwd: state.cwd, concurrent: state.concurrent };
}
