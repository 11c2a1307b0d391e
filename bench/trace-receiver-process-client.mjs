import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Starts trace-receiver-process.mjs: its URL, its request/byte counts (over IPC) and a stop function. */
export function startReceiverProcess() {
  const child = fork(fileURLToPath(new URL("./trace-receiver-process.mjs", import.meta.url)), {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("message", ({ url }) =>
      resolve({
        url,
        counts: () =>
          new Promise(done => {
            child.once("message", ({ counts }) => done(counts));
            child.send("counts");
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
