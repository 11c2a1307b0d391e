import { packageTestConfig } from "../../vitest.shared.js";

const config = packageTestConfig("mailbox-postgres");
// Vitest hands the SSR conditions to its workers as Node --conditions, where "import" would also apply to
// require(): pg's own require("pg-pool") would then load pg-pool's ESM wrapper and fail. Vite adds import/require
// by itself where it resolves, so dropping it here changes nothing else.
config.ssr!.resolve!.conditions = config.ssr!.resolve!.conditions!.filter(
  condition => condition !== "import",
);
// The PostgreSQL tests need a server: AGENT_LATTICE_PG_URL, or a throwaway one the global setup starts (and stops)
// where PostgreSQL's binaries are installed. Without either they skip, saying why — except in CI, where they fail.
Object.assign(config.test!, {
  globalSetup: ["./test/global-setup.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
});

export default config;
