import { InvalidOptionError } from "@agent-lattice/core";
import { assertKnownOptions } from "@agent-lattice/core/internal";
import type { StartObservationFn } from "./observation-mapper.js";

/**
 * What flush()/close() drain: the span processor the host registered (LangfuseSpanProcessor, or any
 * OpenTelemetry SpanProcessor).
 */
export interface FlushableSpanProcessor {
  forceFlush(): Promise<void>;
}

/** Options of {@link createLangfuseContextTracer}. */
export interface LangfuseContextTracerOptions {
  /**
   * The span processor the host registered (e.g. `new LangfuseSpanProcessor()`), drained by flush() and close()
   * so spans reach Langfuse before a short-lived process exits. Without it, flush() drains the tracer provider
   * Langfuse uses (the global one, or the one given to setLangfuseTracerProvider) when it can be flushed.
   */
  spanProcessor?: FlushableSpanProcessor;
  /** Tags on every trace (beside `"agent-lattice"`). */
  tags?: string[];
  /** Metadata on every observation (and as trace metadata on each trace). */
  metadata?: Record<string, unknown>;
  /** Default: @langfuse/tracing's startObservation. Pass one only to inject a custom runtime or a test fake. */
  startObservation?: StartObservationFn;
  /** true: a failed flush (an export Langfuse did not accept) makes flush()/close() throw. Default false. */
  failOnError?: boolean;
}

const KNOWN = new Set(["spanProcessor", "tags", "metadata", "startObservation", "failOnError"]);
const LABEL = "createLangfuseContextTracer()";

export function validateOptions(options: LangfuseContextTracerOptions): void {
  assertKnownOptions(options, KNOWN, LABEL);
  const processor = options.spanProcessor as { forceFlush?: unknown } | undefined;
  if (
    processor !== undefined &&
    (typeof processor !== "object" || typeof processor?.forceFlush !== "function")
  ) {
    throw new InvalidOptionError(
      `${LABEL}: spanProcessor must be a span processor with forceFlush() (e.g. new LangfuseSpanProcessor() from @langfuse/otel).`,
    );
  }
  if (
    options.tags !== undefined &&
    !(Array.isArray(options.tags) && options.tags.every(t => typeof t === "string"))
  ) {
    throw new InvalidOptionError(`${LABEL}: tags must be an array of strings.`);
  }
  if (
    options.metadata !== undefined &&
    (typeof options.metadata !== "object" || options.metadata === null || Array.isArray(options.metadata))
  ) {
    throw new InvalidOptionError(`${LABEL}: metadata must be a plain object of JSON values.`);
  }
  if (options.startObservation !== undefined && typeof options.startObservation !== "function") {
    throw new InvalidOptionError(
      `${LABEL}: startObservation must be a function (@langfuse/tracing's or a fake).`,
    );
  }
  if (options.failOnError !== undefined && typeof options.failOnError !== "boolean") {
    throw new InvalidOptionError(`${LABEL}: failOnError must be a boolean.`);
  }
}
