import { closeSync, fdatasyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/** Closes descriptors whose owner was garbage-collected without release(). */
const descriptors = new FinalizationRegistry<number>(fd => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/**
 * A file appended to with one synchronous write() per call, on a descriptor opened (with its parent directories)
 * on first use and kept open in append mode. Each write is with the OS when it returns — it survives a crash of
 * the process — without a thread-pool round trip. A failed write releases the descriptor, so the next call tries
 * again from scratch.
 */
export class AppendOnlyFile {
  #fd: number | undefined;
  readonly #owner = {};

  constructor(readonly path: string) {}

  /** Appends `data`; with `datasync`, also waits until it is on stable storage. */
  write(data: string, datasync = false): void {
    try {
      if (this.#fd === undefined) {
        mkdirSync(dirname(this.path), { recursive: true });
        this.#fd = openSync(this.path, "a");
        descriptors.register(this.#owner, this.#fd, this.#owner);
      }
      writeSync(this.#fd, data);
      if (datasync) fdatasyncSync(this.#fd);
    } catch (error) {
      this.release();
      throw error;
    }
  }

  /** Closes the descriptor (the next write reopens the path, e.g. after the file was replaced). */
  release(): void {
    if (this.#fd === undefined) return;
    descriptors.unregister(this.#owner);
    try {
      closeSync(this.#fd);
    } catch {
      // already gone
    }
    this.#fd = undefined;
  }
}
