import { appendFile, mkdir, open, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { InvalidOptionError } from "./errors.js";
import { defineHistoryStore, type HistoryStore } from "./history-store.js";
import type { ModelMessage } from "./messages.js";
import { assertKnownOptions } from "./option-validation.js";
import type { FailurePolicyOptions } from "./tracer.js";

export interface JsonlHistoryStoreOptions extends FailurePolicyOptions {
  /** One JSON message per line. Parent directories are created on the first write. */
  path: string;
  /**
   * "write" (default): each message is handed to the OS with one write as it lands, so it survives a crash or
   * kill of the process. "fsync": also fsync after each write, so it survives power loss (slower).
   */
  durability?: "write" | "fsync";
}

/**
 * A HistoryStore over a JSONL file. load() skips malformed lines, so a torn final write (a crash mid-line)
 * never loses the lines before it; the next append starts on a fresh line. replace() writes a temporary file
 * and renames it over the old one, so a crash mid-rewrite leaves either the old or the new history.
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
  // A torn last line would swallow the next append; remember whether the file ends mid-line.
  let needsNewline: boolean | undefined;
  let directoryReady = false;
  const ensureDirectory = async () => {
    if (directoryReady) return;
    await mkdir(dirname(path), { recursive: true });
    directoryReady = true;
  };

  const readLines = async (): Promise<string> => {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
      throw error;
    }
  };

  const writeLine = async (line: string) => {
    await ensureDirectory();
    if (needsNewline === undefined) {
      const existing = await readLines();
      needsNewline = existing.length > 0 && !existing.endsWith("\n");
    }
    const data = `${needsNewline ? "\n" : ""}${line}\n`;
    if (fsync) {
      const handle = await open(path, "a");
      try {
        await handle.write(data);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    } else {
      await appendFile(path, data);
    }
    needsNewline = false;
  };

  return defineHistoryStore(
    {
      async load() {
        const text = await readLines();
        needsNewline = text.length > 0 && !text.endsWith("\n");
        const messages: ModelMessage[] = [];
        for (const line of text.split("\n")) {
          if (!line.trim()) continue;
          try {
            const message = JSON.parse(line) as ModelMessage;
            if (message && (message.role === "user" || message.role === "assistant")) messages.push(message);
          } catch {
            // A torn or corrupted line: skip it and keep everything else.
          }
        }
        return messages;
      },
      append: message => writeLine(JSON.stringify(message)),
      async replace(messages) {
        await ensureDirectory();
        const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
        await writeFile(temporary, messages.map(message => `${JSON.stringify(message)}\n`).join(""));
        await rename(temporary, path);
        needsNewline = false;
      },
    },
    options.failOnError !== undefined ? { failOnError: options.failOnError } : {},
  );
}
