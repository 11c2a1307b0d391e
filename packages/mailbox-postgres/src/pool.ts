import { PostgresMailboxError } from "./errors.js";
import { markUnsent } from "./faults.js";

/**
 * The node-postgres surface the mailbox uses, structurally: `pg`'s Pool and PoolClient satisfy it. The adapter
 * imports `pg` itself only to build a pool from a connection string, and only when a mailbox is created.
 */
export interface PostgresQueryConfig {
  /** A prepared statement's name (node-postgres prepares it once per connection). */
  name?: string;
  text: string;
  values?: unknown[];
}

export interface PostgresQueryResult<Row = Record<string, unknown>> {
  rows: Row[];
  rowCount: number | null;
}

export interface PostgresNotification {
  channel: string;
  payload?: string;
}

/** A connection checked out of the pool (pg's PoolClient). */
export interface PostgresPoolClientLike {
  query<Row = Record<string, unknown>>(
    config: PostgresQueryConfig | string,
    values?: unknown[],
  ): Promise<PostgresQueryResult<Row>>;
  on(event: "notification", listener: (message: PostgresNotification) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
  /** Returns the connection to the pool; with an error (or true) the pool discards it. */
  release(destroy?: Error | boolean): void;
}

/** A connection pool (pg's Pool). */
export interface PostgresPoolLike {
  query<Row = Record<string, unknown>>(
    config: PostgresQueryConfig | string,
    values?: unknown[],
  ): Promise<PostgresQueryResult<Row>>;
  connect(): Promise<PostgresPoolClientLike>;
  end(): Promise<void>;
}

export function isPostgresPoolLike(value: unknown): value is PostgresPoolLike {
  return (
    !!value &&
    typeof value === "object" &&
    typeof (value as PostgresPoolLike).query === "function" &&
    typeof (value as PostgresPoolLike).connect === "function"
  );
}

/** Builds a pg.Pool: the `pg` module is imported here, the first time a mailbox needs one. */
export async function createPool(connectionString: string, max: number): Promise<PostgresPoolLike> {
  let pg: { default?: { Pool: new (config: object) => PostgresPoolLike }; Pool?: unknown };
  try {
    pg = (await import("pg")) as typeof pg;
  } catch (error) {
    throw new PostgresMailboxError(
      "postgres_client_missing",
      'createPostgresMailbox({ connectionString }) needs the "pg" package (node-postgres). Install it next to @agent-lattice/mailbox-postgres: npm install pg — or pass your own pg.Pool as { pool }.',
      { cause: error },
    );
  }
  const Pool = (pg.default?.Pool ?? pg.Pool) as new (config: object) => PostgresPoolLike;
  const pool = new Pool({ connectionString, max });
  // An idle connection that dies (server restart) emits 'error' on the pool; without a listener that would crash
  // the process. The pool drops the connection and the next query opens a new one.
  (pool as unknown as { on(event: "error", listener: () => void): void }).on("error", () => {});
  return pool;
}

/**
 * Runs `use` on a connection checked out of the pool, and hands it back (discarded if `use` failed: it may have
 * died, or be mid-transaction). While it is checked out the connection has an 'error' listener: node-postgres emits
 * 'error' on a client whose connection dies (a terminated backend, a server restart) — even while the query it
 * was running fails with the same error — and an emitter with no listener would throw it out of the process. The
 * pool's own listener covers it again once it is handed back. A failure to check one out is marked as unsent (the
 * statement never reached the server).
 */
export async function withConnection<T>(
  pool: PostgresPoolLike,
  use: (client: PostgresPoolClientLike) => Promise<T>,
): Promise<T> {
  let client: PostgresPoolClientLike;
  try {
    client = await pool.connect();
  } catch (error) {
    throw markUnsent(error);
  }
  client.on("error", ignoreError);
  let result: T;
  try {
    result = await use(client);
  } catch (error) {
    client.removeListener("error", ignoreError);
    client.release(true);
    throw error;
  }
  client.removeListener("error", ignoreError);
  client.release();
  return result;
}

/** The failure reaches the caller through the query that was running; the event itself needs no handling. */
function ignoreError(): void {}
