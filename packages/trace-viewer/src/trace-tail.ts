import { open, stat } from "node:fs/promises";
import { readContextTrace } from "@agent-lattice/core";
import { boundTraceEvent } from "./model/bounded-event.js";
import type { TraceEvent } from "./model/trace-event.js";

export type TailResult =
  | { kind: "events"; events: TraceEvent[] }
  /** The file shrank, was replaced or removed: what was read from it no longer describes it. */
  | { kind: "reset" };

const NEWLINE = 0x0a;

/**
 * Follows one JSONL trace file as a tracer appends to it: each poll reads only the bytes added since the last,
 * parses the complete lines (readContextTrace), bounds each event (bounded-event.ts) and keeps a partial last
 * line until its newline arrives. A file that does not exist yet is waited for.
 */
export class TraceFileTail {
  private offset = 0;
  private remainder: Buffer = Buffer.alloc(0);
  private inode: number | undefined;

  constructor(readonly path: string) {}

  async poll(): Promise<TailResult> {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      if (this.inode === undefined) return { kind: "events", events: [] }; // not created yet
      this.restart();
      return { kind: "reset" };
    }
    if ((this.inode !== undefined && info.ino !== this.inode) || info.size < this.offset) {
      this.restart();
      return { kind: "reset" };
    }
    this.inode = info.ino;
    if (info.size === this.offset) return { kind: "events", events: [] };

    const added = await this.read(this.offset, info.size - this.offset);
    this.offset += added.length;
    const pending = this.remainder.length ? Buffer.concat([this.remainder, added]) : added;
    const end = pending.lastIndexOf(NEWLINE) + 1;
    this.remainder = Buffer.from(pending.subarray(end));
    const events = end ? (readContextTrace(pending.subarray(0, end).toString("utf8")) as TraceEvent[]) : [];
    // A last line without its newline is taken as soon as it is a whole JSON object (a torn write is not: it lacks
    // its closing brace), so a file whose writer ended without a final newline still shows its last event.
    if (this.remainder.length) {
      const last = readContextTrace(this.remainder.toString("utf8")) as TraceEvent[];
      if (last.length) {
        events.push(...last);
        this.remainder = Buffer.alloc(0);
      }
    }
    return { kind: "events", events: events.map(boundTraceEvent) };
  }

  private restart(): void {
    this.offset = 0;
    this.remainder = Buffer.alloc(0);
    this.inode = undefined;
  }

  private async read(position: number, length: number): Promise<Buffer> {
    const handle = await open(this.path, "r");
    try {
      const buffer = Buffer.alloc(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
        if (bytesRead === 0) break; // truncated while reading: the next poll sees the smaller size
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }
}
