import { bubblewrapStatus } from "../src/bash/sandbox.js";

/**
 * Sandbox tests need bubblewrap. Locally they are skipped, saying why, when it cannot run; in CI (CI=true) a
 * missing sandbox fails them instead, so CI never passes by silently skipping what it is meant to prove.
 */
export function requireSandbox(ctx: { skip: (note?: string) => never }): void {
  const status = bubblewrapStatus();
  if (status.usable) return;
  if (process.env.CI === "true") {
    throw new Error(`CI must run the sandbox tests, but bubblewrap is not usable: ${status.reason}`);
  }
  ctx.skip(`bubblewrap is not usable here: ${status.reason}`);
}
