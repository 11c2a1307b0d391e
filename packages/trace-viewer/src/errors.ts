import { AgentLatticeError } from "@agent-lattice/core";

/** A trace file could not be read (missing, a directory, no permission). `path` is the file as given. */
export class TraceFileError extends AgentLatticeError {
  static override readonly errorCode = "trace_file_unreadable";
  readonly path: string;
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(
      "trace_file_unreadable",
      `Cannot read trace file ${JSON.stringify(path)}: ${reason}. Pass the JSONL file a tracer writes ` +
        `(createJsonlContextTracer({ path })).`,
      options,
    );
    this.path = path;
  }
}

/** The page assets (dist/viewer-page.js, .css) are missing: the package was not built or was installed incompletely. */
export class TraceViewerAssetsError extends AgentLatticeError {
  static override readonly errorCode = "trace_viewer_assets_missing";
  constructor(detail: string) {
    super(
      "trace_viewer_assets_missing",
      `The trace viewer's page assets are missing (${detail}). Reinstall @agent-lattice/trace-viewer, or run ` +
        "`pnpm build` in a checkout of the repository.",
    );
  }
}

/**
 * The page for these events could not be built: the events are bounded one by one as they are read (nesting,
 * string length, values), but together they can exceed the page size limit or what one JavaScript string holds.
 */
export class TraceRenderError extends AgentLatticeError {
  static override readonly errorCode = "trace_render_failed";
  constructor(eventCount: number, reason: string, options?: { cause?: unknown }) {
    super(
      "trace_render_failed",
      `Cannot build the trace page for ${eventCount} events: ${reason}. View fewer files at once, split the trace ` +
        "(one file per session with createJsonlContextTracer()), or raise the limit if the browser can take it.",
      options,
    );
  }
}
