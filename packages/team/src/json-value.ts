/**
 * JSON values without the text round trip. A mailbox stores metadata and outcomes as JSON (what a durable store
 * keeps), and the memory mailbox used to get there with JSON.parse(JSON.stringify(value)) on every send and settle
 * — several times slower than copying the object, and it ran once or twice per work item. toJsonValue() gives the
 * same result: plain data (plain objects and arrays of strings, finite numbers, booleans and null) is copied
 * directly; anything else (undefined, toJSON(), class instances, non-finite numbers, cycles, …) takes the JSON
 * path, so its quirks and its errors stay exactly JSON's.
 */
export function toJsonValue(value: unknown): unknown {
  const copied = plainCopy(value, 0);
  return copied === NOT_PLAIN ? JSON.parse(JSON.stringify(value)) : copied;
}

/** Deep copy of a value that already is plain JSON (what toJsonValue() returned). */
export function copyJsonValue<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJsonValue(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    out[key] = copyJsonValue((value as Record<string, unknown>)[key]);
  }
  return out as T;
}

const NOT_PLAIN = Symbol("not plain JSON");
/** Deeper than this, JSON decides (it also reports cycles, which would otherwise recurse forever). */
const MAX_DEPTH = 64;

function plainCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // JSON writes -0 as 0 and non-finite numbers as null.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : NOT_PLAIN;
    case "object":
      break;
    default:
      return NOT_PLAIN; // undefined, functions, symbols, bigints: JSON drops, nulls or rejects them
  }
  if (value === null) return null;
  if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return NOT_PLAIN;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    // JSON.parse makes "__proto__" an own property; an assignment would set the prototype instead.
    if (key === "__proto__") return NOT_PLAIN;
    const item = plainCopy((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}
