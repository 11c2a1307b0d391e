import { statSync } from "node:fs";

// node:child_process is loaded on first use (process.getBuiltinModule): loading it costs several milliseconds,
// which every `import "agent-lattice"` would pay before its first request otherwise.
const childProcess = () => process.getBuiltinModule("node:child_process");

/**
 * The OS sandbox that enforces Bash's write boundary: bubblewrap (`bwrap`). Each command runs with
 * - every capability dropped (--cap-drop ALL; as root this is what keeps `mount -o remount,rw /` from undoing the
 *   rest),
 * - the whole file system bound read-only (--ro-bind / /), and read-write binds for exactly the writable roots and
 *   this call's granted roots that exist,
 * - a private /dev (null, zero, random, tty… — no disks), a fresh /proc, and a private, empty /tmp (tmpfs),
 * - its own PID namespace (--unshare-pid), so nothing it starts — background jobs, `set -m` jobs, setsid'ed
 *   daemons — survives the call: when the command ends or is killed, the namespace and everything in it goes,
 * - its own IPC namespace, a new session (--new-session: no TIOCSTI into the host's terminal) and
 *   --die-with-parent (the sandbox dies with the host process).
 * The network is shared by default (package managers and curl work); `network: false` adds --unshare-net.
 *
 * bwrap creates a user namespace by itself when the host does not run as root, so the same arguments serve both.
 *
 * Landlock (Linux ≥ 5.13) was evaluated as a second backend where bwrap cannot run (no user namespaces): it needs
 * the landlock_create_ruleset / landlock_add_rule / landlock_restrict_self system calls made by the process that
 * then execs the shell, which Node cannot do without a native addon or a helper binary — and this package ships
 * neither. Without bwrap, Bash therefore falls back to the analyser, which refuses what it cannot model.
 */

export type SandboxStatus = { usable: true } | { usable: false; reason: string };

/** The flags every sandboxed command gets (before the binds). */
export const BASE_FLAGS = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--tmpfs",
  "/tmp",
  "--unshare-pid",
  "--unshare-ipc",
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "ALL",
] as const;

let probe: SandboxStatus | undefined;
let probing: Promise<SandboxStatus> | undefined;

function interpret(result: {
  error?: Error | undefined;
  status: number | null;
  stderr: string;
}): SandboxStatus {
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    return {
      usable: false,
      reason:
        code === "ENOENT"
          ? "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
          : `bwrap could not be started (${code ?? result.error.message})`,
    };
  }
  if (result.status !== 0) {
    return {
      usable: false,
      reason: `bwrap cannot create its namespaces here: ${result.stderr.trim() || `exit code ${result.status}`} (user namespaces may be disabled)`,
    };
  }
  return { usable: true };
}

/** Whether bwrap exists and can create its namespaces here, with the real flags (checked once per process). */
export function bubblewrapStatus(): SandboxStatus {
  probe ??= interpret(
    childProcess().spawnSync("bwrap", [...BASE_FLAGS, "--", "/bin/sh", "-c", "exit 0"], {
      encoding: "utf8",
      timeout: 5000,
    }),
  );
  return probe;
}

/** bubblewrapStatus without blocking the event loop (the Bash tool's first call probes this way). */
export function probeBubblewrap(): Promise<SandboxStatus> {
  if (probe) return Promise.resolve(probe);
  probing ??= new Promise<SandboxStatus>(resolve => {
    const child = childProcess().spawn("bwrap", [...BASE_FLAGS, "--", "/bin/sh", "-c", "exit 0"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", chunk => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("error", error => {
      clearTimeout(timer);
      resolve(interpret({ error, status: null, stderr }));
    });
    child.once("close", status => {
      clearTimeout(timer);
      resolve(interpret({ status, stderr }));
    });
  }).then(status => {
    probe = status;
    return status;
  });
  return probing;
}

/** bwrap arguments that put a command in the sandbox; `writable` are physical directory paths. */
export function bubblewrapPrefix(
  writable: readonly string[],
  cwd: string,
  options: { network: boolean },
): string[] {
  const args = ["bwrap", ...BASE_FLAGS];
  if (!options.network) args.push("--unshare-net");
  // A working directory under /tmp that is no writable root would not exist in the private /tmp: show it
  // read-only. Roots bound afterwards (below or above it) mount over this view where they overlap.
  if (/^\/tmp\//.test(cwd) && isDirectory(cwd)) args.push("--ro-bind", cwd, cwd);
  // After --tmpfs /tmp, so roots under /tmp (the default workspace root) are bound into the private /tmp.
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
