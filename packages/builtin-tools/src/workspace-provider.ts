import { createRequire } from "node:module";
import { tmpdir } from "node:os";
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
  resolveBashOptions,
} from "./options.js";

/** Where private workspaces live unless `root` says otherwise. */
export function defaultWorkspaceRoot(): string {
  return join(tmpdir(), "agent-lattice", "workspaces");
}

export interface AgentWorkspaceOptions {
  /** Parent directory of workspaces (default `<os.tmpdir()>/agent-lattice/workspaces`). */
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

/** One private workspace: its directory (made on demand), its tools and its system prompt section. */
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
  const root = resolveRoot(options?.root, "createAgentWorkspaceTools()");
  const dir = join(root, workspaceDirName(options?.id ?? globalThis.crypto.randomUUID()));
  const tools = options?.tools ?? [...BUILTIN_TOOL_NAMES];
  if (!Array.isArray(tools) || tools.some(name => !BUILTIN_TOOL_NAMES.includes(name))) {
    throw new InvalidOptionError(
      `createAgentWorkspaceTools().tools must list tool names among ${BUILTIN_TOOL_NAMES.join(", ")}.`,
    );
  }
  const bash =
    options?.bash === false ? false : resolveBashOptions(options?.bash, "createAgentWorkspaceTools()");
  const context = createToolContext({
    cwd: dir,
    roots: [dir],
    bash: bash || { sandbox: "none", env: process.env, maxOutputBytes: 1 },
    createCwd: true,
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

/** The built-in tools rooted in a fresh private workspace (cwd and only writable root). */
export function createAgentWorkspaceTools(options?: AgentWorkspaceOptions): ToolDefinition[] {
  return createAgentWorkspace(options).tools;
}

export interface BuiltinWorkspaceProviderOptions {
  /** Parent directory of the per-session workspaces (default `<os.tmpdir()>/agent-lattice/workspaces`). */
  root?: string;
  bash?: BashToolOptions | false;
  tools?: BuiltinToolName[];
}

export interface BuiltinWorkspaceProvider extends WorkspaceProvider {
  /** The resolved parent directory of the workspaces. */
  readonly root: string;
  /** The workspace directory a session gets (known before it is created). */
  directoryFor(sessionId: string): string;
}

/**
 * The default WorkspaceProvider: each agent session gets `<root>/<session id>` as its private workspace
 * (created when a tool first needs it), the seven built-in tools rooted there, and a system prompt section
 * that tells the model where it may write.
 */
export function createBuiltinWorkspaceProvider(
  options?: BuiltinWorkspaceProviderOptions,
): BuiltinWorkspaceProvider {
  assertKnownOptions(options, PROVIDER_KEYS, "createBuiltinWorkspaceProvider()");
  const root = resolveRoot(options?.root, "createBuiltinWorkspaceProvider()");
  // Validate the Bash options once, at assembly, not on the first session.
  if (options?.bash !== false) resolveBashOptions(options?.bash, "createBuiltinWorkspaceProvider()");
  return {
    root,
    directoryFor: sessionId => join(root, workspaceDirName(sessionId)),
    createSession({ sessionId, agentName }): WorkspaceSession {
      const workspace = buildWorkspace(
        {
          root,
          id: sessionId,
          ...(agentName !== undefined ? { agentName } : {}),
          ...(options?.bash !== undefined ? { bash: options.bash } : {}),
          ...(options?.tools !== undefined ? { tools: options.tools } : {}),
        },
        true,
      );
      return { tools: workspace.tools, systemPromptSection: workspace.systemPromptSection };
    },
  };
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

function resolveRoot(root: string | undefined, label: string): string {
  if (root !== undefined && (typeof root !== "string" || root === "")) {
    throw new InvalidOptionError(`${label}.root must be a non-empty directory path.`);
  }
  return resolve(root ?? defaultWorkspaceRoot());
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
