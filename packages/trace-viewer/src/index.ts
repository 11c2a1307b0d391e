// @agent-lattice/trace-viewer public API: JSONL traces → one offline HTML page, or a live page on loopback.
// The bin `agent-lattice-trace` (src/cli.ts) is a thin shell over these.
export { TraceFileError, TraceRenderError, TraceViewerAssetsError } from "./errors.js";
export type { TraceEvent } from "./model/trace-event.js";
export { readTraceFiles } from "./read-trace-files.js";
export { type RenderTraceHtmlOptions, renderTraceHtml } from "./render-html.js";
export { startTraceServer, type TraceServer, type TraceServerOptions } from "./trace-server.js";
