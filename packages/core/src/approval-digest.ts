import { createRequire } from "node:module";

/**
 * What binds a person's decision to the call they were shown: a SHA-256 digest over a canonical JSON encoding of
 * the tool name and the input. The same call always gives the same digest, in any process and after any store
 * round trip (key order, whitespace and `toJSON` values do not change it); any change of name or input does.
 */

/** Deeper values are refused: a stored input is attacker-controllable and encoding recurses. */
const MAX_CANONICAL_DEPTH = 256;

/** Thrown by canonicalJson() for a value that has no JSON encoding (too deep, a bigint, a cycle). */
export class NotCanonicalError extends Error {}

/**
 * The canonical JSON text of `value` (RFC 8785 style): object keys sorted by UTF-16 code units, no whitespace,
 * strings and numbers as JSON.stringify writes them, `toJSON()` applied, undefined members left out (in arrays:
 * null), as a JSON round trip would leave them.
 */
export function canonicalJson(value: unknown): string {
  const text = encode(value, 0, new Set());
  if (text === undefined) throw new NotCanonicalError("the value has no JSON encoding");
  return text;
}

function encode(value: unknown, depth: number, open: Set<object>): string | undefined {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  if (typeof value === "bigint") throw new NotCanonicalError("a bigint has no JSON encoding");
  if (value === null || typeof value !== "object") {
    return typeof value === "function" || typeof value === "symbol" ? undefined : JSON.stringify(value);
  }
  if (depth >= MAX_CANONICAL_DEPTH) {
    throw new NotCanonicalError(`the value is nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  }
  if (open.has(value)) throw new NotCanonicalError("the value contains a cycle");
  open.add(value);
  try {
    if (Array.isArray(value)) {
      return `[${value.map(item => encode(item, depth + 1, open) ?? "null").join(",")}]`;
    }
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const encoded = encode((value as Record<string, unknown>)[key], depth + 1, open);
      if (encoded !== undefined) members.push(`${JSON.stringify(key)}:${encoded}`);
    }
    return `{${members.join(",")}}`;
  } finally {
    open.delete(value);
  }
}

/** Two values with the same JSON content (false when either has none). */
export function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

/**
 * The digest of a call as a person is shown it: lowercase hex SHA-256 of the canonical JSON of
 * `{ input, toolName }`. Throws NotCanonicalError for an input with no JSON encoding.
 */
export function approvalDigest(toolName: string, input: unknown): string {
  return nodeCrypto().createHash("sha256").update(canonicalJson({ toolName, input }), "utf8").digest("hex");
}

type NodeCrypto = typeof import("node:crypto");
let crypto: NodeCrypto | undefined;

/** node:crypto, loaded on first use: most agents never pause, and the import would cost every cold start. */
export function nodeCrypto(): NodeCrypto {
  crypto ??= createRequire(import.meta.url)("node:crypto") as NodeCrypto;
  return crypto;
}
