// @agent-lattice/builtin-tools public API. Every name here is documented at its definition.
export { createBuiltinTools } from "./builtin-tools.js";
export { type DenialInput, type PermissionDeniedDetails, permissionDenied } from "./denial.js";
export {
  allowedRootsOf,
  checkWritePath,
  type WriteCheck,
  type WriteCheckOptions,
  type WriteScope,
} from "./grants.js";
export {
  type BashToolOptions,
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  type BuiltinToolsOptions,
} from "./options.js";
export { isWithin, resolvePhysical, resolvePhysicalEntry } from "./paths.js";
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
