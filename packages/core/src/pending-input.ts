import { raceAbort } from "./abort.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { InvalidOptionError } from "./errors.js";
import { EventChannel } from "./event-channel.js";
import { linkSignals } from "./linked-signal.js";
import type { UserContentBlock } from "./messages.js";
import type { QueryGuard } from "./query-guard.js";
import type { QueryRuntime } from "./query-runtime.js";
import type { QueryControl } from "./request-deadline.js";
import type { RunTrace } from "./run-trace.js";
import type { SDKMessage } from "./sdk-messages.js";

/**
 * The runtime seam between turns: asks the query's runtime for input to admit before the next request, streaming
 * what it emits while it waits. Returns "stopped" when the query was aborted, interrupted or ended by its consumer
 * meanwhile (the runtime's signal fired).
 */
export async function* admitPendingInput(
  queryRuntime: QueryRuntime,
  runtime: AgentRuntime,
  trace: RunTrace,
  control: QueryControl,
  guard: QueryGuard,
  turn: number,
): AsyncGenerator<SDKMessage, UserContentBlock[] | "stopped", undefined> {
  const link = linkSignals([guard.signal, control.interruptController.signal]);
  const stop = link.signal;
  const channel = new EventChannel<SDKMessage>();
  const untrack = guard.trackChannel(channel as EventChannel<unknown>);
  try {
    const pending = Promise.resolve().then(() =>
      queryRuntime.pendingInput!({
        turn,
        sessionId: runtime.sessionId,
        runId: trace.runId,
        signal: stop,
        emit: message => channel.push(message),
      }),
    );
    const input = yield* channel.drainUntil(
      raceAbort(pending, stop).catch(error => {
        if (stop.aborted) return "stopped" as const;
        throw error;
      }),
    );
    if (input === "stopped" || stop.aborted) return "stopped";
    if (input !== undefined && !Array.isArray(input)) {
      throw new InvalidOptionError(
        "QueryRuntime.pendingInput() must return an array of content blocks (or undefined for nothing to admit).",
      );
    }
    return input ?? [];
  } finally {
    untrack();
    link.release();
  }
}
