import { LIVE_EVENTS, type TracePageMeta } from "../model/page-data.js";
import type { TraceEvent } from "../model/trace-event.js";

export type LiveStatus = "connecting" | "live" | "reconnecting";

/**
 * Follows the server's Server-Sent Events stream: each message carries the events appended to the files since the
 * last one. The stream resumes where it left off after a dropped connection (EventSource sends the last event id),
 * and a `reset` (the files were truncated or replaced) reloads the page.
 */
export function followLive(
  live: NonNullable<TracePageMeta["live"]>,
  onEvents: (events: TraceEvent[]) => void,
  onStatus: (status: LiveStatus) => void,
): void {
  const url = new URL(live.url, location.href);
  url.searchParams.set("cursor", live.cursor);
  const source = new EventSource(url);
  onStatus("connecting");
  source.addEventListener("open", () => onStatus("live"));
  source.addEventListener("error", () => onStatus("reconnecting"));
  source.addEventListener(LIVE_EVENTS.events, message => {
    const events: unknown = JSON.parse((message as MessageEvent<string>).data);
    if (Array.isArray(events)) onEvents(events as TraceEvent[]);
  });
  source.addEventListener(LIVE_EVENTS.reset, () => {
    source.close();
    location.reload();
  });
}
