import { randomUUID } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** The server of this run ("" when there is none: the suites skip with `skipReason`). */
export const PG_URL = inject("pgUrl");
export const skipReason = inject("pgSkipReason");
/** Appended to a suite's name when it skips, so the report says why. */
export const skipNote = PG_URL ? "" : ` (skipped: ${skipReason})`;

/** A fresh schema name per test, so tests never see each other's messages. */
export function freshSchema(label = "t"): string {
  return `${label}_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
}

let admin: pg.Pool | undefined;
/** A pool for the tests' own SQL (inspecting tables, dropping schemas). */
export function adminPool(): pg.Pool {
  admin ??= new pg.Pool({ connectionString: PG_URL, max: 4 });
  return admin;
}

export async function dropSchema(schema: string): Promise<void> {
  await adminPool().query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

export async function closeAdmin(): Promise<void> {
  const pool = admin;
  admin = undefined;
  await pool?.end();
}
