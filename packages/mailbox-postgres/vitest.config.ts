import { packageTestConfig } from "../../vitest.shared.js";

const config = packageTestConfig("mailbox-postgres");
// The PostgreSQL tests need a server: AGENT_LATTICE_PG_URL, or a throwaway one the global setup starts (and stops)
// where PostgreSQL's binaries are installed. Without either they skip, saying why — except in CI, where they fail.
Object.assign(config.test!, {
  globalSetup: ["./test/global-setup.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
});

export default config;
