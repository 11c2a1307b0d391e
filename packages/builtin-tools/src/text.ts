/** Bytes sniffed to tell text from binary, as git and grep do. */
export const SNIFF_BYTES = 8192;

/**
 * A buffer looks binary when it has a NUL byte (git's and grep's rule). UTF-8 text never has one; UTF-16 text
 * almost always does and is then refused too, which is what a line-based text tool should do.
 */
export function looksBinary(sample: Uint8Array): boolean {
  return Buffer.from(sample.buffer, sample.byteOffset, sample.byteLength).indexOf(0) !== -1;
}

/** Cuts one long line, saying how much was left out. */
export function truncateLine(line: string, max: number, alreadyDropped = 0): string {
  if (line.length <= max && alreadyDropped === 0) return line;
  const more = Math.max(0, line.length - max) + alreadyDropped;
  return `${line.slice(0, max)}… [line truncated: ${more} more characters]`;
}

export function plural(count: number, word: string, pluralWord = `${word}s`): string {
  return `${count} ${count === 1 ? word : pluralWord}`;
}

/** The message of an fs error, without Node's "ENOENT: " prefix noise kept in `code`. */
export function fsErrorMessage(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file or directory";
    case "EACCES":
    case "EPERM":
      return "permission denied by the operating system";
    case "EISDIR":
      return "is a directory";
    case "ENOTDIR":
      return "a parent of this path is not a directory";
    case "ELOOP":
      return "too many levels of symbolic links";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
