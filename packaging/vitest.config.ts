import { defineConfig } from "vitest/config";

/**
 * The packaging checks: slow (npm installs, packing, whole package test runs), so they run after every other
 * project (groupOrder) and one file at a time, with nothing else competing for the two cores.
 */
export default defineConfig({
  test: {
    name: "packaging",
    include: ["test/**/*.test.ts"],
    globalSetup: ["./src/global-setup.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    fileParallelism: false,
    sequence: { groupOrder: 1 },
  },
});
