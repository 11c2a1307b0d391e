import { AgentLatticeError } from "@agent-lattice/core";
import { DeliveryFailures } from "@agent-lattice/core/internal";

/**
 * LangSmith did not accept trace data: a batch the client gave up on (an HTTP error after retries, a timeout,
 * an unreachable endpoint), or a run the adapter could not hand to langsmith. Raised only by tracers created
 * with `failOnError: true` — by the next onEvent (so query() throws) or by flush()/close(), whichever comes
 * first — and once per failure.
 */
export class LangSmithDeliveryError extends AgentLatticeError {
  static override readonly errorCode = "langsmith_delivery_failed";
  /** One line per failure, oldest first (at most 20 kept). */
  readonly failures: readonly string[];
  constructor(failures: readonly string[], options?: { cause?: unknown }) {
    super(
      "langsmith_delivery_failed",
      `LangSmith did not receive part of the trace (${failures.length} failure${failures.length === 1 ? "" : "s"}): ` +
        `${failures.join("; ")}. Check LANGSMITH_ENDPOINT / apiUrl and LANGSMITH_API_KEY, and that the endpoint is ` +
        "reachable; the agent's own run was not affected.",
      options,
    );
    this.failures = failures;
  }
}

/** Delivery failures of one tracer, raised (once) as a LangSmithDeliveryError by the failure policy. */
export class FailureLog extends DeliveryFailures {
  /** `onAdd` sees each failure line as it is recorded (a worker forwards them to the tracer's thread). */
  constructor(onAdd?: (line: string) => void) {
    super((lines, options) => new LangSmithDeliveryError(lines, options), onAdd);
  }
}
