/**
 * The page carries its data in two `<script type="application/json">` elements: a small one before the viewer
 * script (title, files, counts: the page paints its frame from it at once) and the events after it (parsed once
 * the document is in, so the first paint does not wait for megabytes of trace).
 */
export const PAGE_META_ELEMENT_ID = "al-trace-meta";
export const PAGE_EVENTS_ELEMENT_ID = "al-trace-events";

/** The performance mark the page sets once the tree is rendered and responds to input (the bench waits for it). */
export const INTERACTIVE_MARK = "trace-viewer:interactive";

export interface TracePageMeta {
  /** Format of the page data, so a page and a server of different versions can tell. */
  version: 1;
  title: string;
  /** The trace files shown, as given (for the header). */
  files: string[];
  generatedAt: string;
  /** How many events the events element holds. */
  eventCount: number;
  /** Live mode (served by `agent-lattice-trace serve`): where the page subscribes for more events. */
  live?: {
    /** Server-Sent Events endpoint, relative to the page. */
    url: string;
    /** Stream position the embedded events end at (the server's event cursor). */
    cursor: string;
  };
}

/** SSE event names of the live stream. */
export const LIVE_EVENTS = {
  /** data: a JSON array of trace events (history-encoded like the page's), appended after the last ones. */
  events: "events",
  /** The files were truncated or replaced: the page reloads. */
  reset: "reset",
} as const;
