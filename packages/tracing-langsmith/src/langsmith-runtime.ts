import type { ContextTraceEvent } from "@agent-lattice/core";
import { DeferredEvents } from "@agent-lattice/core/internal";
import type { RunTree, RunTreeConfig } from "langsmith/run_trees";
import { createDeliveryFetch } from "./delivery-fetch.js";
import { FailureLog } from "./errors.js";
import type { LangSmithContextTracerOptions } from "./options.js";
import { LangSmithRunMapper } from "./run-mapper.js";

/** What close() and flush() drain: langsmith's Client, or anything shaped like it (a test fake's). */
interface DrainableClient {
  flush?(): Promise<unknown>;
  awaitPendingTraceBatches?(): Promise<unknown>;
}

/** The tracer's engine: the mapper, langsmith's client, the work handed to it. Runs in a worker or in-process. */
export interface LangSmithRuntime {
  /**
   * Queues events; they are mapped when the agent pauses (core's DeferredEvents), or at once with `mapAtOnce`
   * (the worker: its batches arrive at the agent's pauses already), or once langsmith has loaded.
   */
  push(events: readonly ContextTraceEvent[]): void;
  /** Resolves once everything handed over so far has been sent (or has failed: see failures). */
  flush(): Promise<void>;
  /** Ends the runs still open, then flushes. */
  close(): Promise<void>;
  /** Resolves once langsmith holds no unsent batch (without forcing one out early). */
  settled(): Promise<void>;
  readonly failures: FailureLog;
}

/**
 * langsmith is imported when the runtime is created, asynchronously: events that arrive before it has loaded
 * wait in order in memory. Runs go to langsmith's batching client, which sends them in the background.
 */
export function createLangSmithRuntime(
  options: LangSmithContextTracerOptions,
  onFailure?: (line: string) => void,
  mapAtOnce = false,
): LangSmithRuntime {
  const failures = new FailureLog(onFailure);
  const pending = new Set<Promise<void>>();
  const clients = new Set<DrainableClient>();
  let mapper: LangSmithRunMapper | undefined;
  const events = new DeferredEvents((event, error) =>
    failures.add(`the ${event.type} event could not be mapped`, error),
  );
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
      events.start(event => mapper?.handle(event));
    },
    error => {
      events.discard();
      failures.add("langsmith could not be loaded (is the langsmith package installed?)", error);
    },
  );

  async function flush(): Promise<void> {
    await ready;
    events.drain();
    while (pending.size) await Promise.all([...pending]);
    if (!handedOver) return;
    handedOver = false;
    for (const client of clients) {
      await client.flush?.();
      await client.awaitPendingTraceBatches?.();
    }
  }

  return {
    failures,
    push(batch) {
      for (const event of batch) events.push(event);
      if (mapAtOnce) events.drain();
    },
    flush,
    async close() {
      await ready;
      events.drain();
      mapper?.endAll("the tracer was closed before the run ended");
      await flush();
    },
    async settled() {
      await ready;
      while (pending.size) await Promise.all([...pending]);
      for (const client of clients) await client.awaitPendingTraceBatches?.();
    },
  };
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
