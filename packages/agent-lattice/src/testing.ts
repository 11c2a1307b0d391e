// agent-lattice/testing: the offline test kit (@agent-lattice/testing) — an Anthropic-compatible mock server
// speaking real HTTP/SSE, scripted turns and faults, and an in-process scripted ModelClient.
export * from "@agent-lattice/testing";
