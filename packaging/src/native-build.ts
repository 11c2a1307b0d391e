import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT } from "./workspace.js";

/**
 * better-sqlite3 compiles from source on these machines (no prebuilt download), a minute or more per install. The
 * workspace's own install has already compiled the version the workspace pins, for this very Node: an npm project
 * asking for that exact version reuses that addon instead of compiling it a second time. Any other version (the low
 * end of the peer range) still installs with its install script, exactly as for a user.
 */
const WORKSPACE_BETTER_SQLITE3 = join(ROOT, "packages/mailbox-sqlite/node_modules/better-sqlite3");
const ADDON = "build/Release/better_sqlite3.node";

export interface ReusedAddon {
  /** Copies the compiled addon into the project's installed better-sqlite3. */
  installInto(projectDir: string): void;
}

/** The workspace's compiled better-sqlite3 when `specs` ask for exactly its version, else undefined. */
export function reusableBetterSqlite3(specs: string[]): ReusedAddon | undefined {
  const addon = join(WORKSPACE_BETTER_SQLITE3, ADDON);
  if (!existsSync(addon)) return undefined;
  const { version } = JSON.parse(readFileSync(join(WORKSPACE_BETTER_SQLITE3, "package.json"), "utf8")) as {
    version: string;
  };
  if (!specs.includes(`better-sqlite3@${version}`)) return undefined;
  return {
    installInto(projectDir) {
      const target = join(projectDir, "node_modules/better-sqlite3", ADDON);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(addon, target);
    },
  };
}
