import type { Word, WordPart } from "unbash";

/**
 * Static evaluation of shell words (the parts of an unbash Word) for write gating.
 *
 * What the shell would compute at run time is reproduced only where it is certain: quoting (single, double,
 * $'…', backslashes), a leading unquoted `~` / `~/…` (HOME), `$HOME` / `${HOME}` / `$PWD` / `${PWD}` with no
 * operator (from the tool's environment and the tracked working directory, unless the command itself
 * assigns them), simple brace expansion ({a,b}, {1..3}) and glob patterns (kept as patterns, expanded later
 * against the file system). Everything else — other variables, command substitution, arithmetic, `~user`,
 * `${X:-…}` — makes the word unknown, and an unknown write target is denied (fail closed).
 */

export interface WordEnv {
  home: string | undefined;
  /** The single known working directory, or undefined when it is not known (or not unique). */
  pwd: string | undefined;
  /** Variables the command assigns somewhere (then their environment value cannot be trusted). */
  tainted: ReadonlySet<string>;
}

/** One possible expansion of a word. */
export interface Candidate {
  /** The word's text with quoting removed (the literal the shell uses when a glob matches nothing). */
  value: string;
  /** A picomatch pattern (literal parts escaped) when the word has unquoted glob characters. */
  glob?: string;
}

export type Evaluated = { known: true; candidates: Candidate[] } | { known: false; reason: string };

/** Brace expansions that would produce more words than this are treated as unknown. */
const MAX_BRACE_WORDS = 256;

interface Segment {
  text: string;
  glob: boolean;
}

type Sequence = Segment[];

export function evaluateWord(word: Word, env: WordEnv): Evaluated {
  try {
    let sequences: Sequence[];
    if (word.parts === undefined || word.parts.length === 0) {
      sequences = [[{ text: word.value, glob: false }]];
    } else {
      sequences = [[]];
      for (const part of word.parts) sequences = product(sequences, partSequences(part, env));
    }
    if (startsWithUnquotedTilde(word)) sequences = sequences.map(sequence => expandTilde(sequence, env));
    else if (ASSIGNMENT_TILDE.test(word.text))
      sequences = sequences.map(sequence => expandAssignmentTilde(sequence, env));
    return { known: true, candidates: sequences.map(toCandidate) };
  } catch (error) {
    if (error instanceof Unknown) return { known: false, reason: error.message };
    throw error;
  }
}

/** A word's single static string, or undefined when it is not one plain literal (no glob, no braces). */
export function staticValue(word: Word, env: WordEnv): string | undefined {
  const evaluated = evaluateWord(word, env);
  if (!evaluated.known || evaluated.candidates.length !== 1) return undefined;
  const only = evaluated.candidates[0]!;
  return only.glob === undefined ? only.value : undefined;
}

class Unknown extends Error {}

function partSequences(part: WordPart, env: WordEnv): Sequence[] {
  switch (part.type) {
    case "Literal":
    case "SingleQuoted":
    case "AnsiCQuoted":
      return [[{ text: part.value, glob: false }]];
    case "DoubleQuoted":
    case "LocaleString": {
      let sequences: Sequence[] = [[]];
      for (const child of part.parts) sequences = product(sequences, partSequences(child, env));
      return sequences;
    }
    case "SimpleExpansion":
      return [[{ text: variable(part.text.slice(1), part.text, env), glob: false }]];
    case "ParameterExpansion":
      if (part.operation !== undefined || part.prefix !== undefined || part.index !== undefined) {
        throw new Unknown(`${part.text} is computed at run time`);
      }
      return [[{ text: variable(part.parameter, part.text, env), glob: false }]];
    case "Glob":
      return [[{ text: part.text, glob: true }]];
    case "ExtendedGlob":
      return [[{ text: part.text, glob: true }]];
    case "BraceExpansion":
      return expandBraces(part.text).map(text => [{ text, glob: false }]);
    case "CommandExpansion":
      throw new Unknown(`command substitution ${part.text} is only known at run time`);
    case "ProcessSubstitution":
      throw new Unknown(`process substitution ${part.text} is only known at run time`);
    case "ArithmeticExpansion":
      throw new Unknown(`arithmetic expansion ${part.text} is only known at run time`);
    default:
      throw new Unknown(`${(part as { text?: string }).text ?? "this word"} cannot be evaluated statically`);
  }
}

function variable(name: string, text: string, env: WordEnv): string {
  if (env.tainted.has(name)) throw new Unknown(`${text} is assigned by the command itself`);
  if (name === "HOME" && env.home !== undefined) return env.home;
  if (name === "PWD" && env.pwd !== undefined) return env.pwd;
  if (name === "PWD") throw new Unknown(`${text} is not known after a change of directory`);
  throw new Unknown(`variable ${text} is only known at run time`);
}

function startsWithUnquotedTilde(word: Word): boolean {
  if (word.parts === undefined || word.parts.length === 0) return word.text.startsWith("~");
  const first = word.parts[0]!;
  return first.type === "Literal" && first.text.startsWith("~");
}

/**
 * bash also expands `~` right after the `=` of an argument shaped like an assignment (`dd of=~/x` writes to
 * $HOME/x), outside POSIX mode.
 */
const ASSIGNMENT_TILDE = /^[A-Za-z_][A-Za-z0-9_]*=~/;

function expandAssignmentTilde(sequence: Sequence, env: WordEnv): Sequence {
  const first = sequence[0];
  if (first === undefined) return sequence;
  const eq = first.text.indexOf("=");
  const [expanded, ...rest] = expandTilde(
    [{ text: first.text.slice(eq + 1), glob: false }, ...sequence.slice(1)],
    env,
  );
  return [{ text: first.text.slice(0, eq + 1) + (expanded?.text ?? ""), glob: false }, ...rest];
}

function expandTilde(sequence: Sequence, env: WordEnv): Sequence {
  const first = sequence[0];
  if (first === undefined) return sequence;
  const slash = first.text.indexOf("/");
  const prefix = slash === -1 ? first.text : first.text.slice(0, slash);
  const rest = slash === -1 ? "" : first.text.slice(slash);
  let replacement: string;
  if (prefix === "~") {
    if (env.tainted.has("HOME")) throw new Unknown("~ is HOME, which the command itself assigns");
    if (env.home === undefined) throw new Unknown("~ cannot be expanded: HOME is not set");
    replacement = env.home;
  } else if (prefix === "~+") {
    if (env.pwd === undefined) throw new Unknown("~+ is not known after a change of directory");
    replacement = env.pwd;
  } else {
    throw new Unknown(`${prefix} (another user's home or the previous directory) is only known at run time`);
  }
  return [{ text: replacement + rest, glob: false }, ...sequence.slice(1)];
}

function product(left: Sequence[], right: Sequence[]): Sequence[] {
  const out: Sequence[] = [];
  for (const a of left) for (const b of right) out.push([...a, ...b]);
  if (out.length > MAX_BRACE_WORDS)
    throw new Unknown(`the word expands to more than ${MAX_BRACE_WORDS} paths`);
  return out;
}

function toCandidate(sequence: Sequence): Candidate {
  const value = sequence.map(segment => segment.text).join("");
  if (!sequence.some(segment => segment.glob)) return { value };
  const glob = sequence.map(segment => (segment.glob ? segment.text : escapeGlob(segment.text))).join("");
  return { value, glob };
}

/** Escapes picomatch metacharacters so a quoted `*` stays a literal star. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\](){}!+@|]/g, "\\$&");
}

/**
 * Bash brace expansion of one `{…}` group as unbash reports it: comma lists (nested) and sequences
 * ({1..5}, {a..e}, {1..10..2}). Alternatives with quotes, `$`, backticks, backslashes or glob characters are
 * not evaluated here (unknown), which keeps this small and exact.
 */
export function expandBraces(text: string): string[] {
  if (/[$`'"\\*?[]/.test(text)) throw new Unknown(`brace expansion ${text} has parts only known at run time`);
  // Brace expansion happens before tilde expansion: {~,.} becomes ~ and ., and that ~ is then HOME.
  if (text.includes("~"))
    throw new Unknown(`brace expansion ${text} produces a ~, which bash expands afterwards`);
  const words = expandBraceText(text);
  if (words.length > MAX_BRACE_WORDS)
    throw new Unknown(`${text} expands to more than ${MAX_BRACE_WORDS} words`);
  return words;
}

function expandBraceText(text: string): string[] {
  const open = text.indexOf("{");
  if (open === -1) return [text];
  const close = matchingBrace(text, open);
  if (close === -1) return [text];
  const head = text.slice(0, open);
  const body = text.slice(open + 1, close);
  const tails = expandBraceText(text.slice(close + 1));
  const alternatives = splitTopLevel(body);
  let middles: string[];
  if (alternatives.length > 1) middles = alternatives.flatMap(expandBraceText);
  else {
    const sequence = braceSequence(body);
    middles = sequence ?? [`{${body}}`];
  }
  const out: string[] = [];
  for (const middle of middles) for (const tail of tails) out.push(head + middle + tail);
  if (out.length > MAX_BRACE_WORDS)
    throw new Unknown(`{${body}} expands to more than ${MAX_BRACE_WORDS} words`);
  return out;
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === "{") depth++;
    else if (text[index] === "}" && --depth === 0) return index;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === "{") depth++;
    else if (char === "}") depth--;
    else if (char === "," && depth === 0) {
      parts.push(body.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function braceSequence(body: string): string[] | undefined {
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  if (numeric) {
    const from = Number(numeric[1]);
    const to = Number(numeric[2]);
    const step = Math.abs(Number(numeric[3] ?? 1)) || 1;
    if (Math.abs(to - from) / step > MAX_BRACE_WORDS)
      throw new Unknown(`{${body}} expands to too many words`);
    const width =
      /^-?0\d/.test(numeric[1]!) || /^-?0\d/.test(numeric[2]!)
        ? Math.max(numeric[1]!.length, numeric[2]!.length)
        : 0;
    const out: string[] = [];
    for (let value = from; from <= to ? value <= to : value >= to; value += from <= to ? step : -step) {
      out.push(width > 0 ? String(value).padStart(width, "0") : String(value));
    }
    return out;
  }
  const alpha = /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body);
  if (alpha) {
    const from = alpha[1]!.charCodeAt(0);
    const to = alpha[2]!.charCodeAt(0);
    const out: string[] = [];
    for (let code = from; from <= to ? code <= to : code >= to; code += from <= to ? 1 : -1)
      out.push(String.fromCharCode(code));
    return out;
  }
  return undefined;
}
