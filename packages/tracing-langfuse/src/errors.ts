import { AgentLatticeError } from "@agent-lattice/core";
import { DeliveryFailures } from "@agent-lattice/core/internal";

/**
 * Langfuse did not receive part of the trace: the span processor's flush failed (an export the OTLP exporter gave
 * up on: an HTTP error, a timeout, an unreachable host), or an observation could not be created. Raised only by
 * tracers created with `failOnError: true`, by flush()/close() (or the next onEvent for a mapping failure), once.
 */
export class LangfuseDeliveryError extends AgentLatticeError {
  static override readonly errorCode = "langfuse_delivery_failed";
  readonly failures: readonly string[];
  constructor(failures: readonly string[], options?: { cause?: unknown }) {
    super(
      "langfuse_delivery_failed",
      `Langfuse did not receive part of the trace (${failures.length} failure${failures.length === 1 ? "" : "s"}): ` +
        `${failures.join("; ")}. Check LANGFUSE_BASE_URL and the LANGFUSE_PUBLIC_KEY / LANGFUSE_SECRET_KEY the span ` +
        "processor was created with, and that the host is reachable; the agent's own run was not affected.",
      options,
    );
    this.failures = failures;
  }
}

/** Failures of one tracer, raised (once) as a LangfuseDeliveryError by the failure policy. */
export class FailureLog extends DeliveryFailures {
  constructor() {
    super((lines, options) => new LangfuseDeliveryError(lines, options));
  }
}
