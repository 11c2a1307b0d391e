// @agent-lattice/tracing-langsmith: a ContextTracer that sends each AgentLattice query to LangSmith as one run
// tree, on langsmith's own RunTree and batching client.
export { LangSmithDeliveryError } from "./errors.js";
export { createLangSmithContextTracer } from "./langsmith-tracer.js";
export type { LangSmithContextTracerOptions } from "./options.js";
