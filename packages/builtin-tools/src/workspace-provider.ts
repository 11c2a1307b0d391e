import { rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type { ToolDefinition, WorkspaceProvider, WorkspaceSession } from "@agent-lattice/core";
import { InvalidOptionError } from "@agent-lattice/core";
import { buildTools } from "./builtin-tools.js";
import { createToolContext } from "./context.js";
import {
  assertKnownOptions,
  type BashToolOptions,
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  NO_BASH,
  resolveBashOptions,
} from "./options.js";
import {
  defaultWorkspaceRoot,
  ensureDefaultRoot,
  ensureHostRoot,
  ensurePrivate,
} from "./private-directory.js";

export { defaultWorkspaceRoot } from "./private-directory.js";

export interface AgentWorkspaceOptions {
  /**
   * Parent directory of workspaces. Default `<os.tmpdir()>/agent-lattice-<uid>/workspaces`, private to the OS user
   * (created 0700, owner and mode verified). A root you pass must be a real directory you own that group and others
   * cannot write (created 0700 if missing).
   */
  root?: string;
  /** The workspace's directory name under `root` (default a random UUID). Sanitised to one safe segment. */
  id?: string;
  /** Names the agent in the system prompt section. */
  agentName?: string;
  bash?: BashToolOptions | false;
  tools?: BuiltinToolName[];
}

export interface AgentWorkspace {
  /** The private directory: the tools' cwd and only writable root. Created on the first tool call. */
  dir: string;
  tools: ToolDefinition[];
  systemPromptSection: string;
}

const WORKSPACE_KEYS = new Set(["root", "id", "agentName", "bash", "tools"]);
const PROVIDER_KEYS = new Set(["root", "bash", "tools"]);

/**
 * One private workspace: its directory (made on the first tool call), its tools and its system prompt section.
 * The parent root is made and verified now, so an unsafe root fails here with a WorkspaceError, before any tool
 * exists; the workspace directory is verified again on every tool call.
 */
export function createAgentWorkspace(options?: AgentWorkspaceOptions): AgentWorkspace {
  return buildWorkspace(options, false);
}

/**
 * `sectionInSystemPrompt`: the workspace section is certain to reach the system prompt (the provider puts it
 * there), so tool descriptions name "your private workspace" instead of its path and stay identical across
 * sessions (one shared prompt-cache entry for the tool definitions).
 */
function buildWorkspace(
  options: AgentWorkspaceOptions | undefined,
  sectionInSystemPrompt: boolean,
): AgentWorkspace {
  assertKnownOptions(options, WORKSPACE_KEYS, "createAgentWorkspaceTools()");
  const rootOption = resolveRootOption(options?.root, "createAgentWorkspaceTools()");
  const tools = options?.tools ?? [...BUILTIN_TOOL_NAMES];
  if (!Array.isArray(tools) || tools.some(name => !BUILTIN_TOOL_NAMES.includes(name))) {
    throw new InvalidOptionError(
      `createAgentWorkspaceTools().tools must list tool names among ${BUILTIN_TOOL_NAMES.join(", ")}.`,
    );
  }
  const bash =
    options?.bash === false ? false : resolveBashOptions(options?.bash, "createAgentWorkspaceTools()");
  const root = prepareRoot(rootOption);
  const dir = join(root, workspaceDirName(options?.id ?? globalThis.crypto.randomUUID()));
  const context = createToolContext({
    cwd: dir,
    roots: [dir],
    bash: bash || NO_BASH,
    prepare: () => {
      prepareRoot(rootOption);
      if (rootOption === undefined) ensurePrivate(dir, dir, "the session's private workspace");
      else ensureHostRoot(dir);
    },
    ...(sectionInSystemPrompt
      ? { cwdLabel: "your private workspace (its path is in the system prompt)" }
      : {}),
  });
  return {
    dir,
    tools: buildTools(
      context,
      tools.filter(name => name !== "Bash" || bash !== false),
    ),
    systemPromptSection: workspacePromptSection({
      dir,
      ...(options?.agentName ? { agentName: options.agentName } : {}),
    }),
  };
}

/** Makes and verifies the parent of the workspaces; returns it. */
function prepareRoot(rootOption: string | undefined): string {
  if (rootOption === undefined) return ensureDefaultRoot();
  ensureHostRoot(rootOption);
  return rootOption;
}

/** The built-in tools rooted in a fresh private workspace (cwd and only writable root). */
export function createAgentWorkspaceTools(options?: AgentWorkspaceOptions): ToolDefinition[] {
  return createAgentWorkspace(options).tools;
}

export interface BuiltinWorkspaceProviderOptions {
  /**
   * Parent directory of the per-session workspaces (default `<os.tmpdir()>/agent-lattice-<uid>/workspaces`, private
   * to the OS user). See AgentWorkspaceOptions.root for what a root you pass must be.
   */
  root?: string;
  bash?: BashToolOptions | false;
  tools?: BuiltinToolName[];
}

export interface BuiltinWorkspaceProvider extends WorkspaceProvider {
  /** The resolved parent directory of the workspaces (the default is computed from os.tmpdir() when read). */
  readonly root: string;
  /**
   * The workspace directory a session gets (known before it is created). The mapping is deterministic: an agent
   * created with the same `sessionId` — in this process or a later one — gets the same directory back.
   */
  directoryFor(sessionId: string): string;
}

/**
 * The default WorkspaceProvider: each agent session gets `<root>/<session id>` as its private workspace
 * (created when a tool first needs it), the seven built-in tools rooted there, and a system prompt section
 * that tells the model where it may write. createSession throws a WorkspaceError when the root is unsafe.
 */
export function createBuiltinWorkspaceProvider(
  options?: BuiltinWorkspaceProviderOptions,
): BuiltinWorkspaceProvider {
  assertKnownOptions(options, PROVIDER_KEYS, "createBuiltinWorkspaceProvider()");
  const rootOption = resolveRootOption(options?.root, "createBuiltinWorkspaceProvider()");
  // Validate the Bash options once, at assembly, not on the first session.
  if (options?.bash !== false) resolveBashOptions(options?.bash, "createBuiltinWorkspaceProvider()");
  // Nothing touches the file system here: the umbrella creates this provider when it is imported.
  const rootNow = () => rootOption ?? defaultWorkspaceRoot();
  return {
    get root() {
      return rootNow();
    },
    directoryFor: sessionId => join(rootNow(), workspaceDirName(sessionId)),
    createSession({ sessionId, agentName }): WorkspaceSession {
      const workspace = buildWorkspace(
        {
          ...(rootOption !== undefined ? { root: rootOption } : {}),
          id: sessionId,
          ...(agentName !== undefined ? { agentName } : {}),
          ...(options?.bash !== undefined ? { bash: options.bash } : {}),
          ...(options?.tools !== undefined ? { tools: options.tools } : {}),
        },
        true,
      );
      return {
        tools: workspace.tools,
        systemPromptSection: workspace.systemPromptSection,
        // Agent.close(): a private workspace goes with its session unless it is kept (named, resumable sessions).
        close: ({ keep }) => (keep ? undefined : removeWorkspace(workspace.dir)),
      };
    },
  };
}

/**
 * Deletes a workspace directory. rm never follows symlinks (a link inside, or a workspace swapped for a link, is
 * removed as a link), and a missing directory (no tool ever ran) is fine.
 */
async function removeWorkspace(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 2 });
}

/**
 * The system prompt section of a private workspace (B4): where it is, what may be read, where writes may go,
 * and the delegation workspace strategy.
 */
export function workspacePromptSection(input: { dir: string; agentName?: string }): string {
  return [
    "# Workspace",
    `${input.agentName ? `${input.agentName}'s` : "Your"} private workspace is ${input.dir}. Relative paths and Bash commands start there.`,
    "- Read, LS, Glob and Grep are read-only and may read any path this process can read.",
    `- Write, Edit and Bash writes are allowed only inside your workspace roots (${input.dir}) and inside roots granted to the current task through workspaceGrants with access "write". Any other write returns a permission_denied result with a suggested next step.`,
    '- When you delegate work, choose one workspace strategy explicitly: ask the member to write deliverables in its own private workspace and report the paths, or provide workspaceGrants: [{ root, access: ["write"], reason }] for every shared or manager-owned root named as a write destination.',
  ].join("\n");
}

function resolveRootOption(root: string | undefined, label: string): string | undefined {
  if (root !== undefined && (typeof root !== "string" || root === "")) {
    throw new InvalidOptionError(`${label}.root must be a non-empty directory path.`);
  }
  return root === undefined ? undefined : resolve(root);
}

/**
 * One safe path segment per session: ids made of letters, digits, `.`, `_`, `-` (UUIDs) are used as they are;
 * anything else (slashes, `..`, spaces) becomes a readable slug plus a hash, so an id can never point outside
 * the workspace root or collide with another id.
 */
export function workspaceDirName(id: string): string {
  if (/^[A-Za-z0-9._-]{1,100}$/.test(id) && id !== "." && id !== "..") return id;
  const slug =
    id
      .replace(/[^A-Za-z0-9_-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "session";
  return `${slug}-${sha256Hex(id).slice(0, 16)}`;
}

/** node:crypto costs ~7 ms to load; only ids that are not one safe path segment need a hash. */
function sha256Hex(value: string): string {
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(value).digest("hex");
}
