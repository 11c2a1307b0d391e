import type * as Unbash from "unbash";

/**
 * What a script assigns, gathered before it is analysed, because an assignment anywhere can change what a word
 * means everywhere: `HOME=/x` moves `~`, `read CDPATH` redirects `cd name`, `x='a[$(cmd)]'` makes `$((x))` run
 * cmd, `PS4='$(cmd)'` runs cmd on every traced line. Every way bash assigns counts: `NAME=…`, `for NAME in`,
 * `${NAME:=…}`, read, mapfile/readarray, printf -v, getopts, declare/local/export/readonly, let and (( )).
 */
export interface ShellFacts {
  /** Every variable the script may assign. */
  assigned: Set<string>;
  /**
   * Variables that may hold text other than an integer: bash evaluates a variable's text as an expression when it
   * appears in arithmetic, and an expression can contain `a[$(cmd)]`.
   */
  unsafeNumeric: Set<string>;
  /** The text of an assignment whose variable name is only known at run time, if any. */
  dynamic: string | undefined;
  /** Assignments that are not modeled (PATH, PS4, BASH_ENV, …; run-time names). */
  problems: Array<{ text: string; reason: string }>;
}

/** Variables whose value changes what runs or how bash parses; assigning them is not modeled. */
const SPECIAL: Record<string, string> = {
  PATH: "changes which program a command name runs",
  PS0: "is expanded (running command substitutions) when bash prompts or traces",
  PS1: "is expanded (running command substitutions) when bash prompts or traces",
  PS2: "is expanded (running command substitutions) when bash prompts or traces",
  PS3: "is expanded (running command substitutions) when bash prompts or traces",
  PS4: "is expanded (running command substitutions) on every line bash traces with set -x",
  PROMPT_COMMAND: "runs as a command",
  BASH_ENV: "names a file bash runs at the start of every non-interactive shell",
  ENV: "names a file a shell runs at start",
  SHELLOPTS: "changes shell options",
  BASHOPTS: "changes shell options",
  POSIXLY_CORRECT: "switches bash and GNU programs to different parsing rules",
  BASH_XTRACEFD: "redirects the trace output to another descriptor",
  HISTFILE: "names a file the shell writes",
  BASH_LOADABLES_PATH: "lets enable load built-ins from shared objects",
  EXECIGNORE: "changes which programs a command name can run",
  BASH_COMPAT: "changes shell behaviour",
};

type Visit = (node: Unbash.SyntaxNode, callback: (child: Unbash.SyntaxNode) => void) => void;

const INTEGER = /^-?\d+$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function shellFacts(script: Unbash.Script, forEachChild: Visit): ShellFacts {
  const facts: ShellFacts = {
    assigned: new Set(),
    unsafeNumeric: new Set(),
    dynamic: undefined,
    problems: [],
  };
  const assign = (name: string, numeric: boolean, text: string) => {
    if (!NAME.test(name)) {
      facts.dynamic ??= text;
      return;
    }
    facts.assigned.add(name);
    if (!numeric) facts.unsafeNumeric.add(name);
    const special = SPECIAL[name];
    if (special !== undefined)
      facts.problems.push({ text, reason: `assigning ${name} ${special}; not modeled` });
  };
  const dynamicName = (text: string) => {
    facts.dynamic ??= text;
  };
  const visit = (node: Unbash.SyntaxNode) => {
    switch (node.type) {
      case "Assignment":
        assign(
          node.name,
          node.value.type === "Word" && node.index === undefined && !node.append && isNumericWord(node.value),
          node.text,
        );
        break;
      case "For":
      case "Select":
        assign(
          node.name.text,
          node.wordlist?.every(word => INTEGER.test(word.text)) === true,
          `for ${node.name.text} in …`,
        );
        break;
      case "ParameterExpansion":
        if (
          node.operation?.type === "Default" &&
          (node.operation.operator === "=" || node.operation.operator === ":=")
        )
          assign(node.parameter, INTEGER.test(node.operation.operand.text), node.text);
        break;
      case "ArithmeticCommand":
      case "ArithmeticExpansion":
        // Arithmetic assigns numbers only, but it may assign HOME, PWD or CDPATH: count its names as assigned.
        for (const match of ("body" in node ? node.body : node.text).matchAll(/[A-Za-z_][A-Za-z0-9_]*/g))
          facts.assigned.add(match[0]);
        break;
      case "Command":
        commandAssignments(node, assign, dynamicName, facts);
        break;
    }
    forEachChild(node, visit);
  };
  visit(script);
  if (facts.dynamic !== undefined) {
    facts.problems.push({
      text: facts.dynamic,
      reason:
        "the command assigns a variable whose name is only known at run time (it could be PATH, HOME or CDPATH)",
    });
  }
  return facts;
}

function isNumericWord(word: Unbash.Word): boolean {
  if (INTEGER.test(word.text)) return true;
  return word.parts?.length === 1 && word.parts[0]!.type === "ArithmeticExpansion";
}

/** The static text of a word, or undefined when it has expansions. */
function literal(word: Unbash.CommandArgument | Unbash.Redirection): string | undefined {
  if (word.type !== "Word") return word.type === "Assignment" ? word.text : undefined;
  if (word.parts === undefined) return word.value;
  return word.parts.every(part => part.type === "Literal" || part.type === "SingleQuoted")
    ? word.value
    : undefined;
}

function commandAssignments(
  node: Unbash.Command,
  assign: (name: string, numeric: boolean, text: string) => void,
  dynamicName: (text: string) => void,
  facts: ShellFacts,
): void {
  if (node.name === undefined) return;
  const name = literal(node.name);
  const words = node.suffix.filter(item => item.type === "Word" || item.type === "Assignment");
  const texts = words.map(literal);
  const positional = (valueOptions: string): Array<string | undefined> => {
    const out: Array<string | undefined> = [];
    for (let index = 0; index < texts.length; index++) {
      const text = texts[index];
      if (text === "--") {
        out.push(...texts.slice(index + 1));
        break;
      }
      if (text !== undefined && /^-[A-Za-z]+$/.test(text)) {
        if (valueOptions.includes(text.at(-1)!)) index++;
        continue;
      }
      out.push(text);
    }
    return out;
  };
  const valuesOf = (letter: string): Array<string | undefined> => {
    const out: Array<string | undefined> = [];
    texts.forEach((text, index) => {
      if (text === `-${letter}`) out.push(texts[index + 1]);
      else if (text?.startsWith(`-${letter}`) && text.length > 2) out.push(text.slice(2));
    });
    return out;
  };
  const each = (names: Array<string | undefined>, label: string) => {
    for (const variable of names) {
      if (variable === undefined) dynamicName(`${name} ${label}`);
      else assign(variable, false, `${name} ${variable}`);
    }
  };
  switch (name) {
    case "read": {
      const names = positional("adinNptu");
      each(names.length > 0 ? names : ["REPLY"], "…");
      each(valuesOf("a"), "-a …");
      break;
    }
    case "mapfile":
    case "readarray": {
      const names = positional("dnOsuCc");
      each(names.length > 0 ? names.slice(-1) : ["MAPFILE"], "…");
      break;
    }
    case "printf":
      each(valuesOf("v"), "-v …");
      break;
    case "getopts": {
      const names = positional("");
      if (names.length >= 2) each([names[1]], "…");
      break;
    }
    case "declare":
    case "typeset":
    case "local":
    case "readonly":
    case "export":
      for (const [index, word] of words.entries()) {
        if (word.type === "Assignment") continue; // visited as an assignment
        const text = texts[index];
        if (text === undefined) dynamicName(`${name} ${word.text}`);
      }
      break;
    case "unset":
      for (const [index, text] of texts.entries()) {
        if (text !== undefined && NAME.test(text)) facts.assigned.add(text);
        else if (text === undefined)
          dynamicName(`unset ${words[index]!.type === "Word" ? words[index]!.text : ""}`);
      }
      break;
    case "let":
      for (const text of texts) {
        for (const match of (text ?? "").matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) facts.assigned.add(match[0]);
      }
      break;
  }
}
