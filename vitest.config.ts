import { defineConfig } from "vitest/config";

// One vitest run over every package, ending with one summary (this is what `pnpm test` and CI run).
export default defineConfig({
  test: {
    projects: ["packages/*", "examples", "packaging"],
  },
});
