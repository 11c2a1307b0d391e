import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { roundAgents } from "./teams.mjs";

const SIDE = process.env.SIDE ?? "team";
const child = fork(fileURLToPath(new URL("./team-mock-process.mjs", import.meta.url)), [], {
  env: { ...process.env, MEMBERS: "10" },
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
const { url } = await new Promise(r => child.once("message", r));
const N = Number(process.env.N ?? 150);
let cpu = 0;
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const agents = roundAgents(url);
  const c = process.cpuUsage();
  const r = await agents[SIDE].prompt("Investigate all ten areas.");
  const d = process.cpuUsage(c);
  if (i >= 10) cpu += d.user + d.system;
  if (r.subtype !== "success") throw new Error(r.subtype);
}
console.log(
  SIDE,
  "cpu ms/round",
  (cpu / (N - 10) / 1000).toFixed(2),
  "wall",
  ((performance.now() - t0) / N).toFixed(1),
);
child.disconnect();
