import { lstatSync, mkdirSync, realpathSync, type Stats } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { AgentLatticeError } from "@agent-lattice/core";

/**
 * Private directories for workspaces. The default parent is per OS user — `<tmpdir>/agent-lattice-<uid>/workspaces`
 * — because the temporary directory is shared: a directory another user created first could be read, filled or
 * swapped for a symlink to somewhere else. Every directory this package makes there is created with mode 0700 and
 * then checked, component by component with lstat: a real directory (no symlink), owned by this user, with no
 * access for group or others. Anything else stops the tools with a WorkspaceError before any of them runs.
 */

/** The private workspace (or its parent) is not safe to use; the message says what is wrong and what to do. */
export class WorkspaceError extends AgentLatticeError {
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super("workspace_unsafe", message, options);
    this.path = path;
  }
}

/** The current user's id, or undefined where there is none (Windows): then ownership cannot be checked. */
function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

function userTag(): string {
  const uid = currentUid();
  if (uid !== undefined) return String(uid);
  return userInfo().username.replace(/[^A-Za-z0-9_.-]/g, "_") || "user";
}

/**
 * Where private workspaces live unless `root` says otherwise: `<os.tmpdir()>/agent-lattice-<uid>/workspaces`, with
 * the temporary directory taken through realpath (system links such as macOS's /var → /private/var are not the
 * user's to swap, and the tools compare physical paths).
 */
export function defaultWorkspaceRoot(): string {
  let base = tmpdir();
  try {
    base = realpathSync.native(base);
  } catch {
    // Reported by ensureDefaultRoot when a workspace is made.
  }
  return join(base, `agent-lattice-${userTag()}`, "workspaces");
}

/**
 * Makes (if needed) and verifies the default root: the per-user directory and `workspaces` below it must each be a
 * real directory owned by this user with mode 0700 (group and others: no access). Returns the root.
 */
export function ensureDefaultRoot(): string {
  const base = realpathOrThrow(tmpdir());
  const userDir = join(base, `agent-lattice-${userTag()}`);
  ensurePrivate(userDir, userDir, "the per-user directory for private workspaces");
  const root = join(userDir, "workspaces");
  ensurePrivate(root, root, "the parent of private workspaces");
  return root;
}

/**
 * Makes (if needed, one level, mode 0700) and verifies a root the host chose: a real directory (not a symlink)
 * owned by this user, not writable by group or others. What lies above it is the host's choice.
 */
export function ensureHostRoot(root: string): void {
  const info = makeDirectory(root, root);
  if (info.isSymbolicLink() || !info.isDirectory()) {
    throw new WorkspaceError(
      root,
      `The workspace root ${root} is ${info.isSymbolicLink() ? "a symbolic link" : "not a directory"}. Pass a real directory as root.`,
    );
  }
  const uid = currentUid();
  if (uid !== undefined && info.uid !== uid) {
    throw new WorkspaceError(
      root,
      `The workspace root ${root} belongs to user id ${info.uid}, not to this process (user id ${uid}): another user ` +
        "could read or replace the workspaces in it. Use a directory you own, or remove it so it can be created.",
    );
  }
  if (uid !== undefined && (info.mode & 0o022) !== 0) {
    throw new WorkspaceError(
      root,
      `The workspace root ${root} is writable by ${info.mode & 0o002 ? "other users" : "its group"} (mode ${octal(info.mode)}): ` +
        `they could replace a workspace with a symlink. Run chmod go-w ${root}, or use a private directory.`,
    );
  }
}

/** Makes (if needed) and verifies one private directory: real, owned by this user, mode 0700. */
export function ensurePrivate(path: string, shownAs: string, what: string): void {
  const info = makeDirectory(path, shownAs);
  const uid = currentUid();
  const problem = info.isSymbolicLink()
    ? "is a symbolic link"
    : !info.isDirectory()
      ? "is not a directory"
      : uid !== undefined && info.uid !== uid
        ? `belongs to user id ${info.uid}, not to this process (user id ${uid})`
        : uid !== undefined && (info.mode & 0o077) !== 0
          ? `has mode ${octal(info.mode)}, which lets other users in (0700 is required)`
          : undefined;
  if (problem === undefined) return;
  throw new WorkspaceError(
    path,
    `${path} (${what}) ${problem}, so the private workspace at ${shownAs} cannot be trusted and no tool will run. ` +
      "If you created it, remove it and let the SDK create it again; if you did not, another user may be attacking " +
      "this machine's shared temporary directory — pass an explicit root you own instead.",
  );
}

function makeDirectory(path: string, shownAs: string): Stats {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST") {
      throw new WorkspaceError(
        path,
        `Cannot create ${path} for the workspace ${shownAs}: ${code ?? String(error)}. Check that its parent exists and is writable, or pass another root.`,
        { cause: error },
      );
    }
  }
  return lstatSync(path);
}

function realpathOrThrow(path: string): string {
  try {
    return realpathSync.native(path);
  } catch (error) {
    throw new WorkspaceError(
      path,
      `The temporary directory ${path} (the parent of the default workspace root) cannot be resolved: ` +
        `${(error as NodeJS.ErrnoException).code ?? String(error)}. Set TMPDIR to an existing directory or pass a root.`,
      { cause: error },
    );
  }
}

function octal(mode: number): string {
  return `0${(mode & 0o7777).toString(8)}`;
}
