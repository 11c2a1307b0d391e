import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { AppendOnlyFile } from "./append-only-file.js";
import { InvalidOptionError } from "./errors.js";
import { defineHistoryStore, type HistoryStore } from "./history-store.js";
import type { ModelMessage } from "./messages.js";
import { assertKnownOptions } from "./option-validation.js";
import type { HistoryLoadWarning } from "./sdk-messages.js";
import type { FailurePolicyOptions } from "./tracer.js";

export interface JsonlHistoryStoreOptions extends FailurePolicyOptions {
  /** One JSON message per line. Parent directories are created on the first write. */
  path: string;
  /**
   * "write" (default): each message is handed to the OS with one write as it lands, so it survives a crash or
   * kill of the process. "fsync": also fdatasync after each write, so it survives power loss (slower).
   */
  durability?: "write" | "fsync";
}

/**
 * A HistoryStore over a JSONL file. Each append is one write() of one line on a descriptor kept open in append
 * mode (synchronous: the message is with the OS before the loop moves on, without a thread-pool round trip per
 * message). load() skips malformed lines, so a torn final write never loses the lines before it, and the next
 * append starts on a fresh line; each skipped line is reported (the next query yields a `system` `history_warning`). replace() writes a temporary file and renames it over the old one, so a crash
 * mid-rewrite leaves either the old or the new history.
 */
export function createJsonlHistoryStore(options: JsonlHistoryStoreOptions): HistoryStore {
  assertKnownOptions(options, new Set(["path", "failOnError", "durability"]), "createJsonlHistoryStore()");
  if (typeof options?.path !== "string" || options.path === "") {
    throw new InvalidOptionError(
      'createJsonlHistoryStore(): "path" is required, e.g. { path: ".agent-sessions/ada.jsonl" }.',
    );
  }
  if (options.durability !== undefined && options.durability !== "write" && options.durability !== "fsync") {
    throw new InvalidOptionError('createJsonlHistoryStore(): durability must be "write" or "fsync".');
  }
  const { path } = options;
  const fsync = options.durability === "fsync";
  const file = new AppendOnlyFile(path);
  // A torn last line would swallow the next append; remember whether the file ends mid-line.
  let needsNewline: boolean | undefined;

  const readText = (): string => {
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
      throw error;
    }
  };
  const writeLine = (line: string) => {
    if (needsNewline === undefined) {
      const existing = readText();
      needsNewline = existing.length > 0 && !existing.endsWith("\n");
    }
    file.write(`${needsNewline ? "\n" : ""}${line}\n`, fsync);
    needsNewline = false;
  };

  return defineHistoryStore(
    {
      load(context) {
        const text = readText();
        needsNewline = text.length > 0 && !text.endsWith("\n");
        const messages: ModelMessage[] = [];
        const lines = text.split("\n");
        for (let index = 0; index < lines.length; index++) {
          const line = lines[index]!;
          if (!line.trim()) continue;
          let problem: string | undefined;
          try {
            const message = JSON.parse(line) as ModelMessage;
            if (message && (message.role === "user" || message.role === "assistant")) messages.push(message);
            else problem = "it is JSON but not a user or assistant message";
          } catch (error) {
            problem = `it is not valid JSON (${(error as Error).message})`;
          }
          // Skipped, never fatal: everything else is kept. The host is told, so a lost message is not silent.
          if (problem) context?.warn(skippedLine(path, index + 1, line, problem, index === lines.length - 1));
        }
        return messages;
      },
      append: message => writeLine(JSON.stringify(message)),
      replace(messages) {
        // The rename swaps the file under an open descriptor: release it so the next append opens the new file.
        file.release();
        mkdirSync(dirname(path), { recursive: true });
        const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
        writeFileSync(temporary, messages.map(message => `${JSON.stringify(message)}\n`).join(""));
        renameSync(temporary, path);
        needsNewline = false;
      },
      close() {
        file.release();
      },
    },
    options.failOnError !== undefined ? { failOnError: options.failOnError } : {},
  );
}

/** The warning for one skipped line: the last one cut off by an unfinished write, or damage in the middle. */
function skippedLine(
  path: string,
  line: number,
  text: string,
  problem: string,
  last: boolean,
): HistoryLoadWarning {
  const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  if (last) {
    return {
      code: "torn_last_line",
      line,
      preview,
      message:
        `History file ${path}: line ${line}, the last, is cut off (${problem}), so the message it held was skipped ` +
        "and the lines before it were loaded. This is what a write the process did not finish (a crash or kill) leaves.",
    };
  }
  return {
    code: "damaged_line",
    line,
    preview,
    message:
      `History file ${path}: line ${line} was skipped because ${problem}; the messages around it were loaded. The ` +
      "file was edited or corrupted: restore the line from a backup if its message matters (the next rewrite of the " +
      "history drops it from the file).",
  };
}
