import type { TraceEvent } from "./trace-event.js";

/** The element whose JSON text carries the page's data (a `<script type="application/json">`). */
export const PAGE_DATA_ELEMENT_ID = "al-trace-data";

/** The performance mark the page sets once the tree is rendered and responds to input (the bench waits for it). */
export const INTERACTIVE_MARK = "trace-viewer:interactive";

/** What the server renders into the page and the page script reads back. */
export interface TracePageData {
  /** Format of this object, so a page and a server of different versions can tell. */
  version: 1;
  title: string;
  /** The trace files shown, as given (for the header). */
  files: string[];
  generatedAt: string;
  events: TraceEvent[];
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
  /** data: a JSON array of trace events, appended after the last ones. */
  events: "events",
  /** The files were truncated or replaced: the page reloads. */
  reset: "reset",
} as const;
