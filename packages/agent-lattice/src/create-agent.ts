import { createBuiltinWorkspaceProvider } from "@agent-lattice/builtin-tools";
import { createAgentFactory } from "@agent-lattice/core";

/**
 * createAgent() and defineAgent() with the distribution's defaults: every session gets a private workspace
 * (a directory of its own, created on first use) and the built-in Read, Write, Edit, LS, Glob, Grep and Bash
 * tools, writes gated to that workspace plus task-scoped grants. Pass `workspace: false` for a bare session.
 */
export const { createAgent, defineAgent } = createAgentFactory({
  workspace: createBuiltinWorkspaceProvider(),
});
