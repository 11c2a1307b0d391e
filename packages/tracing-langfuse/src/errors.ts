import { AgentLatticeError } from "@agent-lattice/core";

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

/** Collects failures until they are raised (once) by the failure policy. */
export class FailureLog {
  #lines: string[] = [];
  #first: unknown;

  add(what: string, error?: unknown): void {
    if (this.#lines.length === 0) this.#first = error;
    if (this.#lines.length < 20) this.#lines.push(error === undefined ? what : `${what}: ${describe(error)}`);
  }

  throwIfAny(): void {
    if (this.#lines.length === 0) return;
    const lines = this.#lines;
    const cause = this.#first;
    this.#lines = [];
    this.#first = undefined;
    throw new LangfuseDeliveryError(lines, cause === undefined ? undefined : { cause });
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name === "Error" ? "" : `${error.name}: `}${error.message}`;
  try {
    return String(error);
  } catch {
    return "unknown error";
  }
}
