import { InvalidOptionError } from "@agent-lattice/core";
import { assertKnownOptions } from "@agent-lattice/core/internal";
import type { Client } from "langsmith/client";
import type { RunTree, RunTreeConfig } from "langsmith/run_trees";

/** Options of {@link createLangSmithContextTracer}. Every option is optional; unset ones come from `LANGSMITH_*`. */
export interface LangSmithContextTracerOptions {
  /** LangSmith API key. Default: `LANGSMITH_API_KEY`. */
  apiKey?: string;
  /** LangSmith API URL. Default: `LANGSMITH_ENDPOINT`, else `https://api.smith.langchain.com`. */
  apiUrl?: string;
  /** The tracing project runs go to. Default: `LANGSMITH_PROJECT`, else `"default"`. */
  projectName?: string;
  /** Selects a workspace for org-scoped or multi-workspace keys (not the project). Default: `LANGSMITH_WORKSPACE_ID`. */
  workspaceId?: string;
  /** Tags on every root run (beside `"agent-lattice"`). */
  tags?: string[];
  /** Metadata on every run (JSON values). */
  metadata?: Record<string, unknown>;
  /** The RunTree constructor; default langsmith's own. Pass one only to inject a custom runtime or a test fake. */
  RunTree?: new (
    config: RunTreeConfig,
  ) => RunTree;
  /** Creates each root run instead of `new RunTree(config)`: a custom runtime or a test fake. */
  runTree?: (config: RunTreeConfig) => RunTree;
  /**
   * A langsmith Client to send through (its own settings apply: anonymizer, hideInputs, retries). Default: one
   * made from apiKey / apiUrl / workspaceId / timeoutMs / maxRetries, which also lets `failOnError` see every
   * batch that was not delivered.
   */
  client?: Client;
  /** Bounds each request to LangSmith, retries included (default 30000 ms). Ignored with `client`. */
  timeoutMs?: number;
  /** Retries of a batch on a network error, 408/425/429 or 5xx (default 3). Ignored with `client`. */
  maxRetries?: number;
  /** true: undelivered batches make the next onEvent (so query()), flush() or close() throw. Default false. */
  failOnError?: boolean;
}

const KNOWN = new Set([
  "apiKey",
  "apiUrl",
  "projectName",
  "workspaceId",
  "tags",
  "metadata",
  "RunTree",
  "runTree",
  "client",
  "timeoutMs",
  "maxRetries",
  "failOnError",
]);

const LABEL = "createLangSmithContextTracer()";

export function validateOptions(options: LangSmithContextTracerOptions): void {
  assertKnownOptions(options, KNOWN, LABEL);
  for (const key of ["apiKey", "apiUrl", "projectName", "workspaceId"] as const) {
    const value = options[key];
    if (value !== undefined && typeof value !== "string") {
      throw new InvalidOptionError(`${LABEL}: ${key} must be a string, got ${typeof value}.`);
    }
  }
  if (options.apiUrl) {
    try {
      new URL(options.apiUrl);
    } catch {
      throw new InvalidOptionError(
        `${LABEL}: apiUrl must be an absolute URL such as https://api.smith.langchain.com, got ${JSON.stringify(options.apiUrl)}.`,
      );
    }
  }
  if (options.tags !== undefined && !(Array.isArray(options.tags) && options.tags.every(isString))) {
    throw new InvalidOptionError(`${LABEL}: tags must be an array of strings.`);
  }
  if (
    options.metadata !== undefined &&
    (typeof options.metadata !== "object" || options.metadata === null || Array.isArray(options.metadata))
  ) {
    throw new InvalidOptionError(`${LABEL}: metadata must be a plain object of JSON values.`);
  }
  for (const key of ["RunTree", "runTree"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function") {
      throw new InvalidOptionError(
        `${LABEL}: ${key} must be a function (${key === "RunTree" ? "a RunTree constructor" : "(config) => RunTree"}).`,
      );
    }
  }
  if (options.client !== undefined && (typeof options.client !== "object" || options.client === null)) {
    throw new InvalidOptionError(`${LABEL}: client must be a langsmith Client.`);
  }
  if (
    options.timeoutMs !== undefined &&
    !(typeof options.timeoutMs === "number" && Number.isInteger(options.timeoutMs) && options.timeoutMs > 0)
  ) {
    throw new InvalidOptionError(`${LABEL}: timeoutMs must be a positive integer (milliseconds).`);
  }
  if (
    options.maxRetries !== undefined &&
    !(
      typeof options.maxRetries === "number" &&
      Number.isInteger(options.maxRetries) &&
      options.maxRetries >= 0
    )
  ) {
    throw new InvalidOptionError(`${LABEL}: maxRetries must be a non-negative integer.`);
  }
  if (options.failOnError !== undefined && typeof options.failOnError !== "boolean") {
    throw new InvalidOptionError(`${LABEL}: failOnError must be a boolean.`);
  }
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

/** LANGSMITH_TRACING=false (or LANGCHAIN_TRACING_V2=false) turns the tracer into a no-op. */
export function tracingDisabledByEnv(): boolean {
  const env = globalThis.process?.env ?? {};
  const flag = env.LANGSMITH_TRACING ?? env.LANGSMITH_TRACING_V2 ?? env.LANGCHAIN_TRACING_V2;
  return flag !== undefined && ["false", "0", "off", "no"].includes(flag.trim().toLowerCase());
}
