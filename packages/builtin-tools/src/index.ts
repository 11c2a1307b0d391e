// @agent-lattice/builtin-tools public API. Every name here is documented at its definition and in the README.
export {
  allowedRootsOf,
  checkWritePath,
  type WriteCheck,
  type WriteCheckOptions,
  type WriteScope,
} from "@agent-lattice/core/internal";
export { createBuiltinTools } from "./builtin-tools.js";
export { type DenialInput, type PermissionDeniedDetails, permissionDenied } from "./denial.js";
export {
  type BashToolOptions,
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  type BuiltinToolsOptions,
  type UnmodeledCommand,
} from "./options.js";
export { WorkspaceError } from "./private-directory.js";
export {
  type AgentWorkspace,
  type AgentWorkspaceOptions,
  type BuiltinWorkspaceProvider,
  type BuiltinWorkspaceProviderOptions,
  createAgentWorkspace,
  createAgentWorkspaceTools,
  createBuiltinWorkspaceProvider,
  defaultWorkspaceRoot,
  workspacePromptSection,
} from "./workspace-provider.js";
