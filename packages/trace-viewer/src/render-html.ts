import { type ContextTraceEvent, InvalidOptionError, upgradeContextTraceEvent } from "@agent-lattice/core";
import { assertKnownOptions } from "@agent-lattice/core/internal";
import { contentSecurityPolicy } from "./content-security-policy.js";
import { escapeAttribute, escapeHtml, jsonForScriptElement } from "./html-text.js";
import { HistoryEncoder } from "./model/history-codec.js";
import { PAGE_EVENTS_ELEMENT_ID, PAGE_META_ELEMENT_ID, type TracePageMeta } from "./model/page-data.js";
import type { TraceEvent } from "./model/trace-event.js";
import { pageAssets } from "./page-assets.js";

export interface RenderTraceHtmlOptions {
  /** The page's title (default "Agent trace"). */
  title?: string;
  /** Names of the files the events came from, shown in the header. */
  files?: string[];
}

const KNOWN_OPTIONS = new Set(["title", "files"]);

/**
 * One self-contained HTML page showing `events` (as `readContextTrace()` returns them): the run tree with
 * durations, a waterfall, tokens per turn and in total, errors, and every turn's request and response on click.
 * It loads nothing (no network, no CDN) and works opened from disk. Trace content is embedded as JSON data and
 * rendered as text only, under a strict Content-Security-Policy.
 *
 * Events of version 0 (files written before events carried `v`) are upgraded as readContextTrace does; an entry
 * that is not a trace event at all is an error, named by its index.
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
  );
}

/** Validates and upgrades events; throws naming the first entry that is not a trace event. */
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
    out.push(upgraded as TraceEvent);
    index++;
  }
  return out;
}

/**
 * The page around validated, history-encoded events (see history-codec.ts); `meta.live` makes it a live page
 * (serve). The viewer script sits between the small metadata and the events, so it paints the page's frame while
 * the browser is still reading the events.
 */
export function renderPage(meta: TracePageMeta, encodedEvents: readonly TraceEvent[]): string {
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
