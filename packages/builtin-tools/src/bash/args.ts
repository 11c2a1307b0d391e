import type { Word } from "unbash";
import { type Candidate, type Evaluated, evaluateWord, type WordEnv } from "./words.js";

/**
 * A command-line argument as the command table sees it: its source text and its static evaluation.
 * Synthetic arguments (find's `{}`, what xargs appends) are made with literalArg / unknownArg.
 */
export interface Arg {
  text: string;
  evaluated: Evaluated;
}

export function wordArg(word: Word, env: WordEnv): Arg {
  return { text: word.text, evaluated: evaluateWord(word, env) };
}

export function literalArg(value: string, text = value): Arg {
  return { text, evaluated: { known: true, candidates: [{ value }] } };
}

export function unknownArg(text: string, reason: string): Arg {
  return { text, evaluated: { known: false, reason } };
}

/** The single plain string of an argument, or undefined (unknown, several brace words, or a glob). */
export function plain(arg: Arg): string | undefined {
  if (!arg.evaluated.known || arg.evaluated.candidates.length !== 1) return undefined;
  const only = arg.evaluated.candidates[0]!;
  return only.glob === undefined ? only.value : undefined;
}

/** A new argument from each candidate's value with `prefix` removed (dd's `of=FILE`, `--output=FILE`). */
export function stripPrefix(arg: Arg, prefix: string): Arg {
  if (!arg.evaluated.known) return { text: arg.text, evaluated: arg.evaluated };
  const candidates: Candidate[] = arg.evaluated.candidates.map(candidate => ({
    value: candidate.value.slice(prefix.length),
    ...(candidate.glob !== undefined ? { glob: candidate.glob.slice(prefix.length) } : {}),
  }));
  return { text: arg.text.slice(prefix.length), evaluated: { known: true, candidates } };
}

export interface ParsedOptions {
  options: Array<{ name: string; value?: Arg }>;
  operands: Arg[];
  /** Options that could not be decided (an unknown or ambiguous long option): the command is not modeled. */
  problems: string[];
  /** Glob operands that could match a file named like an option (`*` with a file called `--target-directory=..`). */
  optionGlobs: Arg[];
}

/** How a long option takes a value: never, always ("--name VALUE" or "--name=VALUE"), or only as "--name=VALUE". */
export type LongKind = "flag" | "value" | "optional";

export interface OptionSpec {
  /** Short option letters that take a value (attached "-tDIR" or the next argument). */
  short?: string;
  /** Short letters whose value may only be attached (sed's -i[SUFFIX], xargs' -i[R]). */
  optionalShort?: string;
  /**
   * Every long option of the command. GNU getopt accepts any unambiguous prefix (`--target` is
   * `--target-directory`, `--in-pl` is `--in-place`), so the complete list is needed to know which option a word
   * is; a word that matches none, or several, is a problem (the command is then not modeled). Omitted: long
   * options are taken literally and never take a separate value.
   */
  long?: Readonly<Record<string, LongKind>>;
  /** Everything from the first operand on is an operand (wrappers: the rest is the wrapped command). */
  stopAtOperand?: boolean;
}

/** The long option a word names, resolving GNU prefixes; a string problem when unknown or ambiguous. */
export function resolveLong(
  name: string,
  long: Readonly<Record<string, LongKind>>,
): { name: string; kind: LongKind } | { problem: string } {
  const exact = long[name];
  if (exact !== undefined) return { name, kind: exact };
  const candidates = Object.keys(long).filter(option => option.startsWith(name));
  if (candidates.length === 1) return { name: candidates[0]!, kind: long[candidates[0]!]! };
  if (candidates.length === 0) return { problem: `--${name} is not an option this analyser knows` };
  return { problem: `--${name} is ambiguous (${candidates.map(option => `--${option}`).join(", ")})` };
}

/**
 * getopt_long-style parsing, enough to find operands: options may follow operands (GNU permutation) unless
 * `stopAtOperand`. An argument that cannot be evaluated is an operand: for write commands operands are targets,
 * so an unknown one is denied (fail closed).
 */
export function parseOptions(args: readonly Arg[], spec: OptionSpec): ParsedOptions {
  const options: ParsedOptions["options"] = [];
  const operands: Arg[] = [];
  const problems: string[] = [];
  const optionGlobs: Arg[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const text = plain(arg);
    if (text === "--") {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (text === undefined || !text.startsWith("-") || text === "-") {
      const risk = text === undefined && !spec.stopAtOperand ? optionRisk(arg) : undefined;
      if (risk === "glob") optionGlobs.push(arg);
      else if (risk !== undefined) problems.push(risk);
      operands.push(arg);
      if (spec.stopAtOperand) {
        operands.push(...args.slice(index + 1));
        break;
      }
      continue;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const written = text.slice(2, eq === -1 ? undefined : eq);
      let name = written;
      let kind: LongKind = "flag";
      if (spec.long !== undefined) {
        const resolved = resolveLong(written, spec.long);
        if ("problem" in resolved) {
          problems.push(resolved.problem);
          continue;
        }
        ({ name, kind } = resolved);
      }
      if (eq !== -1) options.push({ name, value: stripPrefix(arg, text.slice(0, eq + 1)) });
      else if (kind === "value" && index + 1 < args.length) options.push({ name, value: args[++index]! });
      else options.push({ name });
      continue;
    }
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!;
      const rest = text.slice(at + 1);
      if (spec.optionalShort?.includes(letter)) {
        options.push({ name: letter, value: literalArg(rest) });
        break;
      }
      if (spec.short?.includes(letter)) {
        if (rest !== "") options.push({ name: letter, value: stripPrefix(arg, text.slice(0, at + 1)) });
        else if (index + 1 < args.length) options.push({ name: letter, value: args[++index]! });
        else options.push({ name: letter });
        break;
      }
      options.push({ name: letter });
    }
  }
  return { options, operands, problems, optionGlobs };
}

/**
 * Why an argument that is not one plain word could still be read as an option: its value is only known at run
 * time, or a brace word starts with "-". "glob" when it is a glob that may match a file named like an option (`cp *
 * dest` with a file called `--target-directory=..`): whether one exists is decided against the file system.
 */
function optionRisk(arg: Arg): string | undefined {
  if (!arg.evaluated.known) return `${arg.text} is only known at run time and could be an option`;
  for (const candidate of arg.evaluated.candidates) {
    if (candidate.value.startsWith("-")) return `${arg.text} expands to an option`;
    if (candidate.glob !== undefined && /^[*?[]/.test(candidate.glob)) return "glob";
  }
  return undefined;
}

export function hasOption(parsed: ParsedOptions, ...names: string[]): boolean {
  return parsed.options.some(option => names.includes(option.name));
}

export function optionValues(parsed: ParsedOptions, ...names: string[]): Arg[] {
  return parsed.options
    .filter(option => names.includes(option.name) && option.value)
    .map(option => option.value!);
}
