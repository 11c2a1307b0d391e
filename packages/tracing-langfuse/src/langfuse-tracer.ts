import { type ContextTracer, defineContextTracer, InvalidOptionError } from "@agent-lattice/core";
import { DeferredEvents } from "@agent-lattice/core/internal";
import { FailureLog } from "./errors.js";
import type { LangfuseObservationMapper } from "./observation-mapper.js";
import { type LangfuseContextTracerOptions, validateOptions } from "./options.js";

interface FlushableProvider {
  forceFlush?(): Promise<void>;
  getDelegate?(): FlushableProvider;
}

/**
 * A ContextTracer that sends every query to Langfuse as one trace of observations (see observation-mapper.ts),
 * on @langfuse/tracing — OpenTelemetry spans that the host's span processor (LangfuseSpanProcessor) exports.
 *
 * @langfuse/tracing and @opentelemetry/api are imported when the tracer is created, not when this package is
 * imported, and asynchronously: events that arrive before they have loaded wait in order in memory. onEvent never
 * waits on the network — ended spans go to the span processor, which batches and exports them in the background;
 * flush() and close() drain it (close() first ends the runs still open). close() does not shut the processor
 * down: it is the host's, registered once and shared by every tracer. Redaction is not done here: core applies
 * the agent's `hooks.onTraceEvent` before any tracer sees an event.
 */
export function createLangfuseContextTracer(options: LangfuseContextTracerOptions = {}): ContextTracer {
  validateOptions(options);
  const failOnError = options.failOnError === true;
  const failures = new FailureLog();
  let mapper: LangfuseObservationMapper | undefined;
  const events = new DeferredEvents((event, error) =>
    failures.add(`the ${event.type} event could not be mapped`, error),
  );
  let closed = false;
  let provider: (() => FlushableProvider | undefined) | undefined;

  const ready = loadLangfuse().then(
    ({ tracing, otel, ObservationMapper }) => {
      provider = () => tracing.getLangfuseTracerProvider() as FlushableProvider;
      mapper = new ObservationMapper({
        startObservation: options.startObservation ?? tracing.startObservation,
        ...(options.startObservation
          ? {
              rootOptions: {},
              detached: fn => otel.context.with(otel.trace.deleteSpan(otel.context.active()), fn),
            }
          : {
              // A root takes an invalid parent (a new trace) instead of running inside context.with(): entering a
              // context switches on Node's promise hooks (AsyncLocalStorage) for the whole process where the host
              // registered OpenTelemetry only for Langfuse, making every promise of the agent slower.
              rootOptions: { parentSpanContext: otel.INVALID_SPAN_CONTEXT },
              serializedInputs: true,
              detached: fn => fn(),
            }),
        tags: options.tags ?? [],
        metadata: options.metadata ?? {},
      });
      events.start(event => mapper?.handle(event));
    },
    error => {
      events.discard();
      failures.add(
        "@langfuse/tracing could not be loaded (are @langfuse/tracing and @opentelemetry/api installed?)",
        error,
      );
    },
  );

  async function flush(): Promise<void> {
    await ready;
    events.drain();
    try {
      if (options.spanProcessor) await options.spanProcessor.forceFlush();
      else await flushableProvider(provider?.())?.forceFlush?.();
    } catch (error) {
      failures.add("the span processor could not export the spans", error);
    }
    failures.throwIfAny();
  }

  return defineContextTracer(
    {
      onEvent(event) {
        if (closed) {
          throw new InvalidOptionError(
            "This Langfuse tracer was closed; create a new tracer with createLangfuseContextTracer().",
          );
        }
        if (failOnError) failures.throwIfAny();
        // Mapping (and the library's own work on each run) happens right after this turn of the event loop,
        // while the agent waits on its model or tools, not inside the agent's step.
        events.push(event);
      },
      flush,
      async close() {
        if (closed) return;
        closed = true;
        await ready;
        events.drain();
        mapper?.endAll("the tracer was closed before the run ended");
        await flush();
      },
    },
    { failOnError },
  );
}

/** The global OpenTelemetry provider is a proxy; its delegate (the registered SDK provider) can be flushed. */
function flushableProvider(provider: FlushableProvider | undefined): FlushableProvider | undefined {
  if (!provider) return undefined;
  if (typeof provider.forceFlush === "function") return provider;
  return provider.getDelegate?.();
}

async function loadLangfuse() {
  // The mapper (our own code) loads with the library, so importing this package evaluates only the tracer's shell.
  const [tracing, otel, { LangfuseObservationMapper }] = await Promise.all([
    import("@langfuse/tracing"),
    import("@opentelemetry/api"),
    import("./observation-mapper.js"),
  ]);
  return { tracing, otel, ObservationMapper: LangfuseObservationMapper };
}
