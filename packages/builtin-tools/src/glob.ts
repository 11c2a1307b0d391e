/**
 * Glob matching that cannot backtrack: every pattern is matched by simulating its automaton over the path, so the
 * cost is at most (pattern size × path length) — `*a*a*a*a*a*a*a*b` against a long name takes microseconds, where
 * a regular-expression translation (picomatch, minimatch) backtracks for seconds or minutes.
 *
 * Syntax (bash's pathname expansion plus `**`): `*` any run of characters except `/`; `?` one character except
 * `/`; `[abc]`, `[a-z]`, `[!x]` / `[^x]`, `[[:alpha:]]` classes; `\x` a literal x; `**` as a whole segment: any
 * number of segments (none included); `{a,b}` and `{1..3}` alternatives (expanded first, at most
 * MAX_ALTERNATIVES). With `dot: false` (bash's default) a wildcard never matches a `.` that starts a segment.
 * Extended globs (`@(…)`, `!(…)`) and a leading `!` negation are not supported: their characters match literally.
 */

/** Alternatives a pattern may expand to ({a,b}{c,d} is four). */
export const MAX_ALTERNATIVES = 256;
/** Characters of a pattern, and of all its alternatives together. */
export const MAX_PATTERN_CHARS = 4096;
const MAX_EXPANDED_CHARS = 65_536;

export class GlobPatternError extends Error {
  constructor(pattern: string, reason: string) {
    super(
      `glob pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern)}: ${reason}`,
    );
    this.name = "GlobPatternError";
  }
}

export interface GlobOptions {
  /** Wildcards also match a `.` at the start of a segment (default false, as bash). */
  dot?: boolean;
  /** Expand `{a,b}` and `{1..3}` (default true). */
  braces?: boolean;
  /** A pattern without `/` is matched against the last segment of the path (like ripgrep's --glob). */
  basename?: boolean;
}

type Token =
  | { kind: "char"; char: string }
  | { kind: "any" }
  | { kind: "star" }
  | { kind: "class"; negate: boolean; test: (char: string) => boolean };

/** One `/`-separated part of a pattern: `**`, or a matcher of one path segment. */
type Segment = { kind: "globstar" } | { kind: "tokens"; test: (segment: string, dot: boolean) => boolean };

/** A matcher for `pattern`. Throws GlobPatternError for a pattern beyond the size limits. */
export function compileGlob(pattern: string, options: GlobOptions = {}): (path: string) => boolean {
  return compileGlobs([pattern], options);
}

/** A matcher that accepts a path matching any of `patterns`. */
export function compileGlobs(
  patterns: readonly string[],
  options: GlobOptions = {},
): (path: string) => boolean {
  const dot = options.dot ?? false;
  const compiled: Array<{ segments: Segment[]; basename: boolean }> = [];
  let total = 0;
  for (const pattern of patterns) {
    if (pattern.length > MAX_PATTERN_CHARS)
      throw new GlobPatternError(pattern, `longer than ${MAX_PATTERN_CHARS} characters`);
    const alternatives = options.braces === false ? [pattern] : expandBraces(pattern);
    for (const alternative of alternatives) {
      total += alternative.length;
      if (total > MAX_EXPANDED_CHARS)
        throw new GlobPatternError(pattern, "its alternatives together are too long; simplify the pattern");
      const segments = parsePattern(alternative);
      compiled.push({ segments, basename: options.basename === true && !alternative.includes("/") });
    }
  }
  return (path: string) => {
    const all = path.split("/");
    const last = all.slice(-1);
    return compiled.some(entry => matchSegments(entry.segments, entry.basename ? last : all, dot));
  };
}

/** True when `text` has an unescaped `*`, `?` or `[` (a word bash would expand against the file system). */
export function hasGlobSyntax(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "\\") index++;
    else if (char === "*" || char === "?" || char === "[") return true;
  }
  return false;
}

/**
 * Splits a pattern into its literal leading directory and the rest: `src/**\/*.ts` → `src` and `**\/*.ts`. The
 * base has escapes removed. A pattern without wildcards or braces is all base (glob "").
 */
export function splitGlobBase(pattern: string): { base: string; glob: string } {
  const segments = pattern.split("/");
  let cut = 0;
  while (cut < segments.length && !hasGlobSyntax(segments[cut]!) && !hasBrace(segments[cut]!)) cut++;
  if (cut === segments.length) return { base: removeEscapes(pattern), glob: "" };
  const literal = segments.slice(0, cut).join("/");
  const base = literal === "" && pattern.startsWith("/") ? "/" : removeEscapes(literal);
  return { base, glob: segments.slice(cut).join("/") };
}

function hasBrace(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    if (text[index] === "\\") index++;
    else if (text[index] === "{") return true;
  }
  return false;
}

function removeEscapes(text: string): string {
  return text.replace(/\\(.)/gs, "$1");
}

// --- matching ---------------------------------------------------------------------------------------------------

function matchSegments(pattern: Segment[], path: string[], dot: boolean): boolean {
  const count = pattern.length;
  let states = new Uint8Array(count + 1);
  let next = new Uint8Array(count + 1);
  states[0] = 1;
  closeOverGlobstars(pattern, states);
  for (const segment of path) {
    next.fill(0);
    let any = false;
    for (let index = 0; index < count; index++) {
      if (states[index] !== 1) continue;
      const part = pattern[index]!;
      if (part.kind === "globstar") {
        if (dot || !segment.startsWith(".")) {
          next[index] = 1;
          any = true;
        }
      } else if (part.test(segment, dot)) {
        next[index + 1] = 1;
        any = true;
      }
    }
    if (!any) return false;
    closeOverGlobstars(pattern, next);
    [states, next] = [next, states];
  }
  return states[count] === 1;
}

/** A `**` may match no segment at all: its state also enables the next one. */
function closeOverGlobstars(pattern: Segment[], states: Uint8Array): void {
  for (let index = 0; index < pattern.length; index++) {
    if (states[index] === 1 && pattern[index]!.kind === "globstar") states[index + 1] = 1;
  }
}

/** Simulates the token automaton over one segment: O(tokens × characters), no backtracking. */
function matchTokens(tokens: Token[], segment: string, dot: boolean): boolean {
  const count = tokens.length;
  let states = new Uint8Array(count + 1);
  let next = new Uint8Array(count + 1);
  states[0] = 1;
  closeOverStars(tokens, states);
  let position = 0;
  for (const char of segment) {
    const leadingDot = position === 0 && char === "." && !dot;
    position++;
    next.fill(0);
    let any = false;
    for (let index = 0; index < count; index++) {
      if (states[index] !== 1) continue;
      const token = tokens[index]!;
      switch (token.kind) {
        case "char":
          if (token.char === char) {
            next[index + 1] = 1;
            any = true;
          }
          break;
        case "any":
          if (!leadingDot) {
            next[index + 1] = 1;
            any = true;
          }
          break;
        case "class":
          // A class may match a leading dot: for write checks, more matches is the safe side.
          if (token.test(char) !== token.negate) {
            next[index + 1] = 1;
            any = true;
          }
          break;
        case "star":
          if (!leadingDot) {
            next[index] = 1;
            any = true;
          }
          break;
      }
    }
    if (!any) return false;
    closeOverStars(tokens, next);
    [states, next] = [next, states];
  }
  return states[count] === 1;
}

/**
 * The matcher of one segment: literal comparison when it has no wildcard, a prefix/suffix check for the common
 * single-star forms (`*.ts`, `test*`), the automaton otherwise. All are linear in the segment's length.
 */
function segmentMatcher(tokens: Token[]): (segment: string, dot: boolean) => boolean {
  const stars = tokens.filter(token => token.kind === "star").length;
  const literalOnly = tokens.every(token => token.kind === "char" || token.kind === "star");
  if (literalOnly && stars === 0) {
    const literal = tokens.map(token => (token as { char: string }).char).join("");
    return segment => segment === literal;
  }
  if (literalOnly && stars === 1) {
    const at = tokens.findIndex(token => token.kind === "star");
    const prefix = tokens
      .slice(0, at)
      .map(token => (token as { char: string }).char)
      .join("");
    const suffix = tokens
      .slice(at + 1)
      .map(token => (token as { char: string }).char)
      .join("");
    return (segment, dot) =>
      segment.length >= prefix.length + suffix.length &&
      segment.startsWith(prefix) &&
      segment.endsWith(suffix) &&
      (dot || prefix !== "" || !segment.startsWith("."));
  }
  return (segment, dot) => matchTokens(tokens, segment, dot);
}

function closeOverStars(tokens: Token[], states: Uint8Array): void {
  for (let index = 0; index < tokens.length; index++) {
    if (states[index] === 1 && tokens[index]!.kind === "star") states[index + 1] = 1;
  }
}

// --- parsing ----------------------------------------------------------------------------------------------------

function parsePattern(pattern: string): Segment[] {
  const withoutDotSlash = pattern.replace(/^(\.\/)+/, "");
  return withoutDotSlash.split("/").map(part => (part === "**" ? { kind: "globstar" } : tokenize(part)));
}

function tokenize(segment: string): Segment {
  const chars = Array.from(segment);
  const tokens: Token[] = [];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index]!;
    if (char === "\\" && index + 1 < chars.length) {
      tokens.push({ kind: "char", char: chars[++index]! });
    } else if (char === "*") {
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (char === "?") {
      tokens.push({ kind: "any" });
    } else if (char === "[") {
      const parsed = parseClass(chars, index);
      if (parsed === undefined) tokens.push({ kind: "char", char });
      else {
        tokens.push(parsed.token);
        index = parsed.end;
      }
    } else {
      tokens.push({ kind: "char", char });
    }
  }
  return { kind: "tokens", test: segmentMatcher(tokens) };
}

const POSIX_CLASSES: Record<string, (char: string) => boolean> = {
  alnum: char => /^[\p{L}\p{N}]$/u.test(char),
  alpha: char => /^\p{L}$/u.test(char),
  blank: char => char === " " || char === "\t",
  cntrl: char => /^\p{Cc}$/u.test(char),
  digit: char => char >= "0" && char <= "9",
  graph: char => /^[^\p{Cc}\s]$/u.test(char),
  lower: char => /^\p{Ll}$/u.test(char),
  print: char => /^[^\p{Cc}]$/u.test(char),
  punct: char => /^[!-/:-@[-`{-~]$/.test(char),
  space: char => /^\s$/u.test(char),
  upper: char => /^\p{Lu}$/u.test(char),
  xdigit: char => /^[0-9A-Fa-f]$/.test(char),
  word: char => /^[\p{L}\p{N}_]$/u.test(char),
};

/** `[…]` starting at `open`; undefined when it is not closed (then `[` is a literal character, as in bash). */
function parseClass(chars: string[], open: number): { token: Token; end: number } | undefined {
  let index = open + 1;
  let negate = false;
  if (chars[index] === "!" || chars[index] === "^") {
    negate = true;
    index++;
  }
  const tests: Array<(char: string) => boolean> = [];
  let first = true;
  for (; index < chars.length; index++) {
    let char = chars[index]!;
    if (char === "]" && !first) {
      return { token: { kind: "class", negate, test: value => tests.some(test => test(value)) }, end: index };
    }
    first = false;
    if (char === "[" && chars[index + 1] === ":") {
      const close = chars.indexOf(":", index + 2);
      if (close !== -1 && chars[close + 1] === "]") {
        const name = chars.slice(index + 2, close).join("");
        const test = POSIX_CLASSES[name];
        if (test) {
          tests.push(test);
          index = close + 1;
          continue;
        }
      }
    }
    if (char === "\\" && index + 1 < chars.length) char = chars[++index]!;
    if (chars[index + 1] === "-" && chars[index + 2] !== undefined && chars[index + 2] !== "]") {
      let high = chars[index + 2]!;
      index += 2;
      if (high === "\\" && index + 1 < chars.length) high = chars[++index]!;
      const low = char;
      tests.push(value => value >= low && value <= high);
      continue;
    }
    const literal = char;
    tests.push(value => value === literal);
  }
  return undefined;
}

/**
 * Bash brace expansion: `{a,b}` (nested) and sequences `{1..5}`, `{a..e}`, `{1..10..2}`; escaped braces and braces
 * inside `[…]` are literal; a group without a comma or a sequence is literal. Throws past MAX_ALTERNATIVES.
 */
export function expandBraces(pattern: string): string[] {
  const out: string[] = [];
  const visit = (text: string) => {
    const group = findBraceGroup(text);
    if (group === undefined) {
      out.push(text);
      if (out.length > MAX_ALTERNATIVES)
        throw new GlobPatternError(pattern, `expands to more than ${MAX_ALTERNATIVES} alternatives`);
      return;
    }
    const head = text.slice(0, group.open);
    const tail = text.slice(group.close + 1);
    for (const middle of group.alternatives) visit(head + middle + tail);
  };
  visit(pattern);
  return out;
}

function findBraceGroup(text: string): { open: number; close: number; alternatives: string[] } | undefined {
  let inClass = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "\\") {
      index++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") {
      inClass = text.indexOf("]", index + 2) !== -1;
      continue;
    }
    if (char !== "{") continue;
    const close = matchingBrace(text, index);
    if (close === -1) return undefined;
    const body = text.slice(index + 1, close);
    const alternatives = splitTopLevel(body);
    if (alternatives.length > 1) return { open: index, close, alternatives };
    const sequence = braceSequence(body);
    if (sequence !== undefined) return { open: index, close, alternatives: sequence };
    // A literal {x}: keep looking after it.
  }
  return undefined;
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === "\\") index++;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return index;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === "\\") index++;
    else if (char === "{") depth++;
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
    if (Math.abs(to - from) / step > MAX_ALTERNATIVES)
      throw new GlobPatternError(`{${body}}`, `expands to more than ${MAX_ALTERNATIVES} alternatives`);
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
  if (!alpha) return undefined;
  const from = alpha[1]!.charCodeAt(0);
  const to = alpha[2]!.charCodeAt(0);
  const out: string[] = [];
  for (let code = from; from <= to ? code <= to : code >= to; code += from <= to ? 1 : -1)
    out.push(String.fromCharCode(code));
  return out;
}
