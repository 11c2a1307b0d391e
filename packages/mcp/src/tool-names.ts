import { InvalidOptionError } from "@agent-lattice/core";

/**
 * Model APIs accept tool names matching /^[a-zA-Z0-9_-]{1,64}$/ (Anthropic's limit), stricter than MCP's 128
 * characters with dots.
 */
const MAX_TOOL_NAME_LENGTH = 64;
/** Between the prefix and the server's tool name: `docs` + `search` → `docs_search`. */
export const MCP_TOOL_NAME_SEPARATOR = "_";
/** A prefix leaves room for a readable tool name. */
export const MAX_PREFIX_LENGTH = 32;

export function assertNamePrefix(prefix: unknown, label: string): void {
  if (prefix === undefined) return;
  if (typeof prefix !== "string" || !/^[a-zA-Z0-9_-]+$/.test(prefix) || prefix.length > MAX_PREFIX_LENGTH) {
    throw new InvalidOptionError(
      `${label}.namePrefix must be 1-${MAX_PREFIX_LENGTH} letters, digits, _ or - (it starts every tool name ` +
        `the model sees), got ${JSON.stringify(prefix)}.`,
    );
  }
}

/**
 * Maps a server's tool names to names the model API accepts, with the prefix. A name that is already valid
 * keeps its spelling (`docs_search`); one with other characters has them replaced by `_` (`admin.list` →
 * `docs_admin_list`). A name that had to be cut to fit 64 characters, or whose sanitized form another tool of
 * the same server also produces, ends with `_` and a hash of the original name, so names never depend on the
 * order the server lists its tools in and stay the same when the list changes. Throws when two names still
 * collide (which needs a hash collision).
 */
export function modelToolNames(names: readonly string[], prefix: string | undefined): Map<string, string> {
  const head = prefix ? `${prefix}${MCP_TOOL_NAME_SEPARATOR}` : "";
  const room = MAX_TOOL_NAME_LENGTH - head.length;
  const sanitized = new Map<string, { name: string; altered: boolean; cut: boolean }>();
  const producers = new Map<string, number>();
  for (const original of names) {
    const clean = original.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
    const cut = clean.length > room;
    const name = cut ? clean.slice(0, room) : clean;
    sanitized.set(original, { name, altered: clean !== original, cut });
    producers.set(name, (producers.get(name) ?? 0) + 1);
  }
  const result = new Map<string, string>();
  const owners = new Map<string, string>();
  for (const [original, { name, altered, cut }] of sanitized) {
    const needsHash = cut || (altered && producers.get(name)! > 1);
    const suffix = needsHash ? `_${hashOf(original)}` : "";
    const final = `${head}${needsHash ? name.slice(0, room - suffix.length) : name}${suffix}`;
    const owner = owners.get(final);
    if (owner !== undefined) {
      throw new InvalidOptionError(
        `MCP tools ${JSON.stringify(owner)} and ${JSON.stringify(original)} both map to the tool name ` +
          `"${final}". Rename one of them on the server.`,
      );
    }
    owners.set(final, original);
    result.set(original, final);
  }
  return result;
}

/** FNV-1a, 32 bits, as 8 hex digits: stable across processes, no crypto module needed. */
function hashOf(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}
