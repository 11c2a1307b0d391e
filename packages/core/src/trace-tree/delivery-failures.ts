/**
 * What a hosted tracer could not deliver, kept until its failure policy raises it — once, as the adapter's own
 * error (LangSmithDeliveryError, LangfuseDeliveryError), built by `toError` from one line per failure (the first
 * 20, then how many more) with the first failure's error as its cause.
 */
export class DeliveryFailures {
  #lines: string[] = [];
  #first: unknown;
  #dropped = 0;

  constructor(
    private readonly toError: (lines: readonly string[], options?: { cause?: unknown }) => Error,
    /** Sees each line as it is recorded (a worker thread forwards them to the tracer's thread). */
    private readonly onAdd?: (line: string) => void,
  ) {}

  /** Records `what` went wrong, with the error's description when there is one. */
  add(what: string, error?: unknown): void {
    this.addLine(error === undefined ? what : `${what}: ${describeFailure(error)}`, error);
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

  /** Throws (and forgets) the failures recorded so far. */
  throwIfAny(): void {
    if (this.#lines.length === 0) return;
    const lines = this.#dropped ? [...this.#lines, `${this.#dropped} more`] : this.#lines;
    const cause = this.#first;
    this.#lines = [];
    this.#first = undefined;
    this.#dropped = 0;
    throw this.toError(lines, cause === undefined ? undefined : { cause });
  }
}

/** An error in one line: its name (unless plain Error), message and its cause's message when that differs. */
export function describeFailure(error: unknown): string {
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
