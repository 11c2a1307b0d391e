import type { TestProject } from "vitest/node";
import { findPostgresBinaries, startTemporaryPostgres } from "../src/test-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The server the tests use ("" when none: they skip). */
    pgUrl: string;
    /** Why there is none. */
    pgSkipReason: string;
  }
}

/**
 * Gives the tests a PostgreSQL server: AGENT_LATTICE_PG_URL when set (CI starts one), else a throwaway server in a
 * temporary directory when initdb is installed, stopped (and deleted) when the run ends. With neither the tests
 * skip and say why; under CI=true that is a failure instead, so CI cannot pass without having run them.
 */
export default async function setup(project: TestProject) {
  let url = process.env.AGENT_LATTICE_PG_URL ?? "";
  let reason = "";
  let stop: (() => Promise<void>) | undefined;
  if (!url) {
    if (!findPostgresBinaries()) {
      reason = "no AGENT_LATTICE_PG_URL and no PostgreSQL server binaries (initdb, pg_ctl) on this machine";
    } else {
      try {
        // Tests check the mailbox's logic, not the disk: skip fsync to keep the run quick.
        const server = await startTemporaryPostgres({ settings: { fsync: "off", full_page_writes: "off" } });
        url = server.url;
        stop = server.stop;
      } catch (error) {
        reason = `a throwaway PostgreSQL server could not be started: ${(error as Error).message}`;
      }
    }
  }
  if (!url && process.env.CI === "true") {
    throw new Error(`CI=true: the PostgreSQL mailbox tests must run, but ${reason}.`);
  }
  if (!url) console.warn(`[mailbox-postgres] skipping the PostgreSQL tests: ${reason}.`);
  // Child processes the tests start (workers, claimers) find the server here too.
  if (url) process.env.AGENT_LATTICE_PG_URL = url;
  project.provide("pgUrl", url);
  project.provide("pgSkipReason", reason);
  return async () => {
    await stop?.();
  };
}
