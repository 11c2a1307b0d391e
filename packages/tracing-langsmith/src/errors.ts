import { AgentLatticeError } from "@agent-lattice/core";

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

/** Collects delivery failures until they are raised (once) by the failure policy. */
export class FailureLog {
  #lines: string[] = [];
  #first: unknown;
  #dropped = 0;

  /** `onAdd` sees each failure line as it is recorded (a worker forwards them to the tracer's thread). */
  constructor(private readonly onAdd?: (line: string) => void) {}

  add(what: string, error?: unknown): void {
    const detail = error === undefined ? "" : `: ${describe(error)}`;
    this.addLine(`${what}${detail}`, error);
  }

  addLine(line: string, error?: unknown): void {
    this.onAdd?.(line);
    if (this.#lines.length === 0) this.#first = error;
    if (this.#lines.length >= 20) {
      this.#dropped += 1;
      return;
    }
    this.#lines.push(line);
  }

  get size(): number {
    return this.#lines.length;
  }

  /** Throws (and forgets) the failures collected so far. */
  throwIfAny(): void {
    if (this.#lines.length === 0) return;
    const lines = this.#dropped ? [...this.#lines, `${this.#dropped} more`] : this.#lines;
    const cause = this.#first;
    this.#lines = [];
    this.#first = undefined;
    this.#dropped = 0;
    throw new LangSmithDeliveryError(lines, cause === undefined ? undefined : { cause });
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const causeText = cause instanceof Error && cause.message !== error.message ? ` (${cause.message})` : "";
    return `${error.name === "Error" ? "" : `${error.name}: `}${error.message}${causeText}`;
  }
  try {
    return String(error);
  } catch {
    return "unknown error";
  }
}
