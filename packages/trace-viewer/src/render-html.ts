import { type ContextTraceEvent, InvalidOptionError, upgradeContextTraceEvent } from "@agent-lattice/core";
import { assertKnownOptions } from "@agent-lattice/core/internal";
import { contentSecurityPolicy } from "./content-security-policy.js";
import { TraceRenderError } from "./errors.js";
import { escapeAttribute, escapeHtml, jsonForScriptElement } from "./html-text.js";
import { boundTraceEvent } from "./model/bounded-event.js";
import { HistoryEncoder } from "./model/history-codec.js";
import { PAGE_EVENTS_ELEMENT_ID, PAGE_META_ELEMENT_ID, type TracePageMeta } from "./model/page-data.js";
import type { TraceEvent } from "./model/trace-event.js";
import { pageAssets } from "./page-assets.js";

export interface RenderTraceHtmlOptions {
  /** The page's title (default "Agent trace"). */
  title?: string;
  /** Names of the files the events came from, shown in the header. */
  files?: string[];
  /** The largest page to build, in bytes (default 256 MiB); a larger one is a TraceRenderError. */
  maxPageBytes?: number;
}

/**
 * 256 MiB: well under the longest string V8 can build (about 512 M characters), and already more than a browser
 * opens comfortably.
 */
export const DEFAULT_MAX_PAGE_BYTES = 256 * 1024 * 1024;

const KNOWN_OPTIONS = new Set(["title", "files", "maxPageBytes"]);

/** Option validation shared with startTraceServer. */
export function assertMaxPageBytes(value: unknown, owner: string): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0)
    throw new InvalidOptionError(
      `${owner}: maxPageBytes must be a positive integer (bytes), got ${JSON.stringify(value)}.`,
    );
}

/**
 * One self-contained HTML page showing `events` (as `readContextTrace()` returns them): the run tree with
 * durations, a waterfall, tokens per turn and in total, errors, and every turn's request and response on click.
 * It loads nothing (no network, no CDN) and works opened from disk. Trace content is embedded as JSON data and
 * rendered as text only, under a strict Content-Security-Policy.
 *
 * Events of version 0 (files written before events carried `v`) are upgraded as readContextTrace does; an entry
 * that is not a trace event at all is an error, named by its index. Values past the viewer's bounds (nesting, string
 * length, values per event: see bounded-event.ts) are shown truncated. A page that still cannot be built (the
 * events together exceed what one string can hold) is a TraceRenderError.
 */
export function renderTraceHtml(
  events: Iterable<ContextTraceEvent | TraceEvent>,
  options: RenderTraceHtmlOptions = {},
): string {
  assertKnownOptions(options, KNOWN_OPTIONS, "renderTraceHtml");
  if (options.title !== undefined && typeof options.title !== "string")
    throw new InvalidOptionError(`renderTraceHtml: title must be a string, got ${typeof options.title}.`);
  if (
    options.files !== undefined &&
    !(Array.isArray(options.files) && options.files.every(f => typeof f === "string"))
  )
    throw new InvalidOptionError(
      "renderTraceHtml: files must be an array of strings (the trace file names).",
    );
  assertMaxPageBytes(options.maxPageBytes, "renderTraceHtml");
  const encoder = new HistoryEncoder();
  const encoded = normalizeEvents(events).map(event => encoder.encode(event));
  return renderPage(
    {
      version: 1,
      title: options.title ?? "Agent trace",
      files: options.files ?? [],
      generatedAt: new Date().toISOString(),
      eventCount: encoded.length,
    },
    encoded,
    options.maxPageBytes,
  );
}

/**
 * Validates, upgrades and bounds events (over-deep or over-long values become truncation markers); throws naming
 * the first entry that is not a trace event.
 */
export function normalizeEvents(events: Iterable<unknown>): TraceEvent[] {
  if (events === null || typeof events !== "object" || !(Symbol.iterator in events))
    throw new InvalidOptionError(
      "renderTraceHtml: events must be an array (or iterable) of trace events, e.g. readContextTrace(fileText).",
    );
  const out: TraceEvent[] = [];
  let index = 0;
  for (const event of events) {
    const upgraded = upgradeContextTraceEvent(event);
    if (!upgraded)
      throw new InvalidOptionError(
        `renderTraceHtml: events[${index}] is not a trace event (it needs a string type and run_id, a numeric seq ` +
          "and a data object). Parse JSONL files with readContextTrace(), which skips torn lines.",
      );
    out.push(boundTraceEvent(upgraded as TraceEvent));
    index++;
  }
  return out;
}

/**
 * The page around validated, history-encoded events (see history-codec.ts); `meta.live` makes it a live page
 * (serve). The viewer script sits between the small metadata and the events, so it paints the page's frame while
 * the browser is still reading the events.
 */
export function renderPage(
  meta: TracePageMeta,
  encodedEvents: readonly TraceEvent[],
  maxPageBytes = DEFAULT_MAX_PAGE_BYTES,
): string {
  let html: string;
  try {
    html = pageHtml(meta, encodedEvents);
  } catch (error) {
    // The events are bounded one by one; together they can still be more than one string holds.
    if (error instanceof RangeError) throw new TraceRenderError(meta.eventCount, error.message);
    throw error;
  }
  const bytes = Buffer.byteLength(html, "utf8");
  if (bytes > maxPageBytes) {
    throw new TraceRenderError(
      meta.eventCount,
      `the page would be ${megabytes(bytes)}, over the ${megabytes(maxPageBytes)} limit (maxPageBytes, --max-page-mb)`,
    );
  }
  return html;
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 2 : 0)} MB`;

function pageHtml(meta: TracePageMeta, encodedEvents: readonly TraceEvent[]): string {
  const assets = pageAssets();
  const csp = contentSecurityPolicy(assets, { live: meta.live !== undefined });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="@agent-lattice/trace-viewer">
<title>${escapeHtml(meta.title)}</title>
<style>${assets.style}</style>
</head>
<body>
<noscript>This trace viewer needs JavaScript.</noscript>
<script type="application/json" id="${PAGE_META_ELEMENT_ID}">${jsonForScriptElement(meta)}</script>
<script>${assets.script}</script>
<script type="application/json" id="${PAGE_EVENTS_ELEMENT_ID}">${jsonForScriptElement(encodedEvents)}</script>
</body>
</html>
`;
}
