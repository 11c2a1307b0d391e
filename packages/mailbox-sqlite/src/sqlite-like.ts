/**
 * The SQLite surface the mailbox uses, structurally: better-sqlite3's Database satisfies it, and so does any
 * synchronous driver with prepared statements (`prepare(sql).run/get/all`) and `exec(sql)`. The adapter never
 * imports a SQLite library; the host passes its own connection.
 */
export interface SQLiteStatementLike {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SQLiteDatabaseLike {
  prepare(sql: string): SQLiteStatementLike;
  exec(sql: string): unknown;
}

export function isSQLiteDatabaseLike(value: unknown): value is SQLiteDatabaseLike {
  return (
    !!value &&
    typeof value === "object" &&
    typeof (value as SQLiteDatabaseLike).prepare === "function" &&
    typeof (value as SQLiteDatabaseLike).exec === "function"
  );
}
