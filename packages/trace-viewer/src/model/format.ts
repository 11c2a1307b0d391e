/** Number formatting shared by the page and its tests; locale-independent so figures read the same everywhere. */

/** 12345 → "12,345". */
export function formatCount(value: number): string {
  const sign = value < 0 ? "-" : "";
  const digits = String(Math.round(Math.abs(value)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** 850 → "850 ms", 1234 → "1.23 s", 75_000 → "1 m 15 s". */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  if (minutes < 60) return `${minutes} m ${seconds} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} m`;
}

/** An instant as ISO text, or "" when unknown. */
export function formatInstant(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : "";
}
