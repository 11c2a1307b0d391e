// agent-lattice: the umbrella package. Re-exports every public name of the scoped packages and wires
// the defaults (createAgent's workspace) that core leaves to a distribution. The offline test kit
// (@agent-lattice/testing) is on its own subpath, `agent-lattice/testing`, so it never loads with the root.
export * from "@agent-lattice/builtin-tools";
export * from "@agent-lattice/core";
export * from "@agent-lattice/mailbox-postgres";
export * from "@agent-lattice/mailbox-sqlite";
export * from "@agent-lattice/mcp";
export * from "@agent-lattice/team";
export * from "@agent-lattice/tracing-langfuse";
export * from "@agent-lattice/tracing-langsmith";
export { createAgent, defineAgent } from "./create-agent.js";
