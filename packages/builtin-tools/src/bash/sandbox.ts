import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";

/**
 * The opt-in OS sandbox (`bash: { sandbox: "bubblewrap" }`): the command runs under bwrap with the whole
 * file system mounted read-only, a fresh /dev and /proc, and only the writable roots (the agent's roots and
 * this call's granted roots that exist) bound read-write. A new PID namespace means nothing the command
 * starts survives it, setsid or not. This enforces what static write detection can only approximate.
 */

let probe: { usable: true } | { usable: false; reason: string } | undefined;

/** Whether bwrap exists and can create its namespaces here (checked once per process). */
export function bubblewrapStatus(): { usable: true } | { usable: false; reason: string } {
  if (probe) return probe;
  const result = spawnSync(
    "bwrap",
    ["--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--proc", "/proc", "true"],
    {
      encoding: "utf8",
      timeout: 5000,
    },
  );
  if (result.error) {
    probe = {
      usable: false,
      reason: `bwrap could not be started (${(result.error as NodeJS.ErrnoException).code ?? result.error.message})`,
    };
  } else if (result.status !== 0) {
    probe = {
      usable: false,
      reason: `bwrap failed: ${result.stderr.trim() || `exit code ${result.status}`}`,
    };
  } else {
    probe = { usable: true };
  }
  return probe;
}

/** bwrap arguments that put a command in the sandbox; `writable` are physical directory paths. */
export function bubblewrapPrefix(writable: readonly string[], cwd: string): string[] {
  const args = [
    "bwrap",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--unshare-pid",
    "--proc",
    "/proc",
    "--die-with-parent",
  ];
  for (const dir of writable) {
    if (isDirectory(dir)) args.push("--bind", dir, dir);
  }
  args.push("--chdir", cwd, "--");
  return args;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
