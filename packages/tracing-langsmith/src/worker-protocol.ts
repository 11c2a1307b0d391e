import type { WireEvent } from "./history-refs.js";
import type { LangSmithContextTracerOptions } from "./options.js";

/** The options a worker can take: the cloneable ones (RunTree, runTree and client stay in-process). */
export type WorkerOptions = Omit<
  LangSmithContextTracerOptions,
  "RunTree" | "runTree" | "client" | "failOnError"
>;

/** Tracer thread → worker. */
export type ToWorker =
  | { type: "events"; seq: number; events: WireEvent[] }
  | { type: "flush"; id: number }
  | { type: "close"; id: number };

/** Worker → tracer thread. */
export type FromWorker =
  | { type: "failure"; line: string }
  | { type: "done"; id: number }
  /** Everything up to events batch `seq` has been sent: the worker may stop holding the process open. */
  | { type: "idle"; seq: number };
