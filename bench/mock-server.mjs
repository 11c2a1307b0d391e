import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Starts mock-server-process.mjs and resolves with its URL and a stop function. */
export function startMockServerProcess(env = {}) {
  const child = fork(fileURLToPath(new URL("./mock-server-process.mjs", import.meta.url)), {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("message", ({ url }) =>
      resolve({
        url,
        /** How many requests the mock has served so far. */
        requests: () =>
          new Promise(answer => {
            child.once("message", reply => answer(reply.requests));
            child.send("requests");
          }),
        stop: () =>
          new Promise(done => {
            child.once("exit", done);
            child.disconnect();
          }),
      }),
    );
  });
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
