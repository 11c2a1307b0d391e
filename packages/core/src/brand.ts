/**
 * Identity that survives two installed copies of core. A host's adapter can depend on a slightly different core
 * version than the host itself, and then two copies of this module run in one process: module-private WeakMaps
 * and `instanceof` would reject a tracer, store or error made by the other copy. Brands are registered symbols
 * (`Symbol.for`), which every copy sees as the same key.
 */
export const BRANDS = {
  error: Symbol.for("agent-lattice.error"),
  failurePolicy: Symbol.for("agent-lattice.failure-policy"),
  outputSchema: Symbol.for("agent-lattice.output-schema"),
  release: Symbol.for("agent-lattice.release"),
  queryRuntime: Symbol.for("agent-lattice.query-runtime"),
  resumeCheck: Symbol.for("agent-lattice.resume-check"),
} as const;

/** Sets a non-enumerable, read-only branded property (invisible to JSON, spreads and Object.keys). */
export function brand<T extends object>(target: T, key: symbol, value: unknown): T {
  Object.defineProperty(target, key, { value, enumerable: false, writable: false, configurable: true });
  return target;
}

export function brandOf(target: unknown, key: symbol): unknown {
  if ((typeof target !== "object" && typeof target !== "function") || target === null) return undefined;
  return (target as Record<symbol, unknown>)[key];
}
