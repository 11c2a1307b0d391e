import { createAgentFactory } from "@agent-lattice/core";

/**
 * createAgent(): a live agent session with the distribution's defaults.
 *
 * Until @agent-lattice/builtin-tools lands, no default workspace is installed, so createAgent() runs bare
 * (exactly like createBareAgent()); pass `workspace` to install your own WorkspaceProvider.
 */
export const createAgent = createAgentFactory();
