import {
  type ContextTraceEvent,
  type ContextTracer,
  defineContextTracer,
  InvalidOptionError,
} from "@agent-lattice/core";
import type { RunTree, RunTreeConfig } from "langsmith/run_trees";
import { createDeliveryFetch } from "./delivery-fetch.js";
import { FailureLog } from "./errors.js";
import { type LangSmithContextTracerOptions, tracingDisabledByEnv, validateOptions } from "./options.js";
import { LangSmithRunMapper } from "./run-mapper.js";

/** What close() and flush() drain: langsmith's Client, or anything shaped like it (a test fake's). */
interface DrainableClient {
  flush?(): Promise<unknown>;
  awaitPendingTraceBatches?(): Promise<unknown>;
}

/**
 * A ContextTracer that sends every query as a LangSmith run tree (see run-mapper.ts for the mapping).
 *
 * langsmith is imported when the tracer is created, not when this package is imported, and asynchronously: events
 * that arrive before it has loaded wait in order in memory. onEvent never waits on the network — runs go to
 * langsmith's batching client, which sends them in the background; flush() and close() wait until every batch
 * handed over so far has been sent (and close() first ends runs still open, so a short-lived process loses
 * nothing). Redaction is not done here: core applies the agent's `hooks.onTraceEvent` before any tracer sees an
 * event.
 */
export function createLangSmithContextTracer(options: LangSmithContextTracerOptions = {}): ContextTracer {
  validateOptions(options);
  const failOnError = options.failOnError === true;
  if (tracingDisabledByEnv()) return defineContextTracer({ onEvent() {} }, { failOnError });

  const failures = new FailureLog();
  const pending = new Set<Promise<void>>();
  const clients = new Set<DrainableClient>();
  let mapper: LangSmithRunMapper | undefined;
  let waiting: ContextTraceEvent[] | undefined = [];
  let closed = false;
  // Whether any run was handed to langsmith since the last drain (an idle tracer's flush sends nothing).
  let handedOver = false;

  const track = (operation: () => Promise<unknown>, after?: Promise<void>): Promise<void> => {
    handedOver = true;
    const done = (after ?? Promise.resolve()).then(operation).then(
      () => undefined,
      error => failures.add("a run could not be handed to langsmith", error),
    );
    pending.add(done);
    void done.finally(() => pending.delete(done));
    return done;
  };

  const ready = loadLangSmith().then(
    ({ Client, RunTree }) => {
      const client =
        options.client ??
        new Client({
          ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
          ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}),
          timeout_ms: options.timeoutMs ?? 30_000,
          // Retries happen in the delivery fetch, which therefore sees each batch's final outcome.
          callerOptions: { maxRetries: 0 },
          fetchImplementation: createDeliveryFetch({
            timeoutMs: options.timeoutMs ?? 30_000,
            maxRetries: options.maxRetries ?? 3,
            failures,
          }),
          // Never hold the caller on a root run's patch: flush()/close() wait instead.
          blockOnRootRunFinalization: false,
        });
      clients.add(client);
      const Constructor = options.RunTree ?? RunTree;
      const createRoot = options.runTree ?? ((config: RunTreeConfig): RunTree => new Constructor(config));
      mapper = new LangSmithRunMapper({
        createRoot: config => createRoot({ ...config, client }),
        track,
        projectName: options.projectName,
        tags: options.tags ?? [],
        metadata: options.metadata ?? {},
        onRoot: run => {
          const root = run as RunTree & { client?: DrainableClient; replicas?: Array<{ client?: unknown }> };
          if (root.client) clients.add(root.client);
          for (const replica of root.replicas ?? []) {
            if (replica && !Array.isArray(replica) && replica.client)
              clients.add(replica.client as DrainableClient);
          }
        },
      });
      const queued = waiting ?? [];
      waiting = undefined;
      for (const event of queued) {
        try {
          mapper.handle(event);
        } catch (error) {
          failures.add(`the ${event.type} event could not be mapped`, error);
        }
      }
    },
    error => {
      waiting = undefined;
      failures.add("langsmith could not be loaded (is the langsmith package installed?)", error);
    },
  );

  async function flush(): Promise<void> {
    await ready;
    while (pending.size) await Promise.all([...pending]);
    if (!handedOver) return failures.throwIfAny();
    handedOver = false;
    for (const client of clients) {
      await client.flush?.();
      await client.awaitPendingTraceBatches?.();
    }
    failures.throwIfAny();
  }

  return defineContextTracer(
    {
      onEvent(event) {
        if (closed) {
          throw new InvalidOptionError(
            "This LangSmith tracer was closed; create a new tracer with createLangSmithContextTracer().",
          );
        }
        if (failOnError) failures.throwIfAny();
        if (waiting) waiting.push(event);
        else mapper?.handle(event);
      },
      flush,
      async close() {
        if (closed) return;
        closed = true;
        await ready;
        mapper?.endAll("the tracer was closed before the run ended");
        await flush();
      },
    },
    { failOnError },
  );
}

async function loadLangSmith(): Promise<{
  Client: typeof import("langsmith/client").Client;
  RunTree: typeof import("langsmith/run_trees").RunTree;
}> {
  const [{ Client }, { RunTree }] = await Promise.all([
    import("langsmith/client"),
    import("langsmith/run_trees"),
  ]);
  return { Client, RunTree };
}
