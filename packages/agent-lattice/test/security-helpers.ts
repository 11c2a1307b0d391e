import { spawnSync } from "node:child_process";

export { agentTool, createAgent, createBuiltinWorkspaceProvider } from "agent-lattice";
export { textTurn, toolTurn } from "agent-lattice/testing";

let status: { usable: true } | { usable: false; reason: string } | undefined;

/** Whether bwrap can run here with the sandbox's own flags (the umbrella exports no probe; this mirrors it). */
export function bubblewrapAvailableForTests(): { usable: true } | { usable: false; reason: string } {
  if (status) return status;
  const run = spawnSync(
    "bwrap",
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--cap-drop", "ALL", "true"],
    { encoding: "utf8", timeout: 5000 },
  );
  status = run.error
    ? { usable: false, reason: `bwrap could not be started (${(run.error as NodeJS.ErrnoException).code})` }
    : run.status === 0
      ? { usable: true }
      : { usable: false, reason: run.stderr.trim() || `exit code ${run.status}` };
  return status;
}
