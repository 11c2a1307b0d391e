// The built-in tools' limits and defaults: named in their descriptions (built eagerly) and enforced by their
// implementations (loaded on first call), so both sides import them from here.

/** Lines returned when the model gives no limit (as Claude Code's Read). */
export const READ_DEFAULT_LIMIT = 2000;
/** Characters kept of one line. */
export const READ_MAX_LINE_CHARS = 2000;
/** Characters of numbered output per call; past this the call stops early and says how to page on. */
export const READ_MAX_OUTPUT_CHARS = 100_000;
/** Bytes read per call at most, page and line count together (a note says when the scan stopped). */
export const READ_MAX_SCAN_BYTES = 256 * 1024 * 1024;

/** Entries listed per call; the rest is counted in a note. */
export const LS_MAX_ENTRIES = 1000;

/** Paths returned per call; the rest is counted in a note. */
export const GLOB_MAX_RESULTS = 1000;

/** Characters of output per call; the rest is cut with a note. */
export const GREP_MAX_OUTPUT_CHARS = 30_000;
/** Characters kept of one matching or context line. */
export const GREP_MAX_LINE_CHARS = 500;
/** Files larger than this are skipped (and counted in a note). */
export const GREP_MAX_FILE_BYTES = 20 * 1024 * 1024;

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
