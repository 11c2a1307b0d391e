// @agent-lattice/tracing-langfuse: a ContextTracer that sends each AgentLattice query to Langfuse as one trace,
// on @langfuse/tracing (OpenTelemetry spans exported by the host's LangfuseSpanProcessor).
export { LangfuseDeliveryError } from "./errors.js";
export { createLangfuseContextTracer } from "./langfuse-tracer.js";
export type { ObservationLike, StartObservationFn } from "./observation-mapper.js";
export type { FlushableSpanProcessor, LangfuseContextTracerOptions } from "./options.js";
