/**
 * What a sed script writes, read from the script itself (GNU sed syntax): `w FILE` and `W FILE` commands and the
 * `w FILE` flag of `s///` write files; the `e` command and the `e` flag of `s///` run shell commands. The script is
 * parsed command by command (addresses, blocks, labels, text arguments, `s` and `y` with any delimiter), and
 * anything this parser does not recognise is a problem — so the answer is either the complete list of files the
 * script writes, or "not modeled".
 */
export function sedScriptWrites(script: string): { files: string[] } | { problem: string } {
  const files: string[] = [];
  let at = 0;
  const peek = () => script[at];
  const skipBlanks = () => {
    while (at < script.length && (script[at] === " " || script[at] === "\t")) at++;
  };
  const restOfLine = () => {
    const end = script.indexOf("\n", at);
    const text = script.slice(at, end === -1 ? undefined : end);
    at = end === -1 ? script.length : end;
    return text;
  };
  const untilSeparator = () => {
    while (at < script.length && script[at] !== ";" && script[at] !== "\n") at++;
  };
  /** Reads up to an unescaped `delimiter`; false when the script ends first. */
  const delimited = (delimiter: string): boolean => {
    while (at < script.length) {
      const char = script[at++];
      if (char === "\\") at++;
      else if (char === delimiter) return true;
      else if (char === "\n" && delimiter !== "\n") return false;
    }
    return false;
  };
  const address = (): string | undefined => {
    const char = peek();
    if (char === undefined) return undefined;
    if (/[0-9]/.test(char)) {
      while (/[0-9~]/.test(peek() ?? "")) at++;
      return undefined;
    }
    if (char === "$") {
      at++;
      return undefined;
    }
    if (char === "/" || char === "\\") {
      const delimiter = char === "\\" ? script[++at] : "/";
      at++;
      if (delimiter === undefined || !delimited(delimiter)) return "an address regex is not closed";
      while (/[IM]/.test(peek() ?? "")) at++;
    }
    return undefined;
  };
  const depth: number[] = [];
  while (at < script.length) {
    skipBlanks();
    const first = peek();
    if (first === undefined) break;
    if (first === "\n" || first === ";") {
      at++;
      continue;
    }
    if (first === "#") {
      restOfLine();
      continue;
    }
    const problem1 = address();
    if (problem1) return { problem: problem1 };
    skipBlanks();
    if (peek() === ",") {
      at++;
      skipBlanks();
      if (peek() === "+" || peek() === "~") at++;
      const problem2 = address();
      if (problem2) return { problem: problem2 };
    }
    skipBlanks();
    while (peek() === "!") {
      at++;
      skipBlanks();
    }
    const command = script[at++];
    if (command === undefined) return { problem: "an address without a command" };
    switch (command) {
      case "{":
        depth.push(at);
        continue;
      case "}":
        if (depth.pop() === undefined) return { problem: "an unexpected }" };
        continue;
      case "=":
      case "d":
      case "D":
      case "g":
      case "G":
      case "h":
      case "H":
      case "n":
      case "N":
      case "p":
      case "P":
      case "x":
      case "z":
      case "F":
        continue;
      case "l":
      case "L":
      case "q":
      case "Q":
        skipBlanks();
        while (/[0-9]/.test(peek() ?? "")) at++;
        continue;
      case ":":
      case "b":
      case "t":
      case "T":
      case "v":
        untilSeparator();
        continue;
      case "a":
      case "i":
      case "c": {
        // Text to the end of the line; a backslash-newline continues it.
        while (at < script.length) {
          const end = script.indexOf("\n", at);
          if (end === -1) {
            at = script.length;
            break;
          }
          let backslashes = 0;
          for (let back = end - 1; back >= at && script[back] === "\\"; back--) backslashes++;
          at = end + 1;
          if (backslashes % 2 === 0) break;
        }
        continue;
      }
      case "r":
      case "R":
        restOfLine();
        continue;
      case "w":
      case "W": {
        skipBlanks();
        const file = restOfLine();
        if (file === "") return { problem: `${command} without a file name` };
        files.push(file);
        continue;
      }
      case "e":
        return { problem: "the e command runs a shell command" };
      case "s": {
        const delimiter = script[at++];
        if (delimiter === undefined || delimiter === "\n" || delimiter === "\\")
          return { problem: "s without a valid delimiter" };
        if (!delimited(delimiter) || !delimited(delimiter)) return { problem: "an s command is not closed" };
        for (;;) {
          const flag = peek();
          if (flag === undefined || flag === ";" || flag === "\n" || flag === "}") break;
          if (flag === " " || flag === "\t") {
            skipBlanks();
            continue;
          }
          at++;
          if (flag === "e") return { problem: "the e flag of s runs the pattern space as a shell command" };
          if (flag === "w") {
            skipBlanks();
            const file = restOfLine();
            if (file === "") return { problem: "s///w without a file name" };
            files.push(file);
            break;
          }
          if (!/[gpiImM0-9]/.test(flag)) return { problem: `unknown s flag ${JSON.stringify(flag)}` };
        }
        continue;
      }
      case "y": {
        const delimiter = script[at++];
        if (delimiter === undefined || delimiter === "\n" || delimiter === "\\")
          return { problem: "y without a valid delimiter" };
        if (!delimited(delimiter) || !delimited(delimiter)) return { problem: "a y command is not closed" };
        continue;
      }
      default:
        return { problem: `unknown command ${JSON.stringify(command)}` };
    }
  }
  if (depth.length > 0) return { problem: "a { block is not closed" };
  return { files };
}
