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
}

export interface OptionSpec {
  /** Short option letters that take a value (attached "-tDIR" or the next argument). */
  short?: string;
  /** Short letters whose value may only be attached (sed's -i[SUFFIX], xargs' -i[R]). */
  optionalShort?: string;
  /** Long option names that take a value ("--name VALUE" or "--name=VALUE"). */
  long?: readonly string[];
  /** Everything from the first operand on is an operand (wrappers: the rest is the wrapped command). */
  stopAtOperand?: boolean;
}

/**
 * getopt-style parsing, enough to find operands. An argument that cannot be evaluated is an operand: for
 * write commands operands are targets, so an unknown one is denied (fail closed).
 */
export function parseOptions(args: readonly Arg[], spec: OptionSpec): ParsedOptions {
  const options: ParsedOptions["options"] = [];
  const operands: Arg[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const text = plain(arg);
    if (text === "--") {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (text === undefined || !text.startsWith("-") || text === "-") {
      operands.push(arg);
      if (spec.stopAtOperand) {
        operands.push(...args.slice(index + 1));
        break;
      }
      continue;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = text.slice(2, eq === -1 ? undefined : eq);
      if (eq !== -1) options.push({ name, value: stripPrefix(arg, text.slice(0, eq + 1)) });
      else if (spec.long?.includes(name) && index + 1 < args.length)
        options.push({ name, value: args[++index]! });
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
  return { options, operands };
}

export function hasOption(parsed: ParsedOptions, ...names: string[]): boolean {
  return parsed.options.some(option => names.includes(option.name));
}

export function optionValues(parsed: ParsedOptions, ...names: string[]): Arg[] {
  return parsed.options
    .filter(option => names.includes(option.name) && option.value)
    .map(option => option.value!);
}
