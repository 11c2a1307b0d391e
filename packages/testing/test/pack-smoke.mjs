// Install check 3 (U2), run by packaging/test/install-alone.test.ts: this package installed alone beside
// @agent-lattice/core from the packed tarballs (no workspace): core's built-in Anthropic client talks real
// HTTP/SSE to the mock server, and the scripted client plugs into core's ModelClient port.
import assert from "node:assert/strict";
import { createBareAgent } from "@agent-lattice/core";
import { createScriptedModelClient, startMockAnthropicServer, textTurn } from "@agent-lattice/testing";

const server = await startMockAnthropicServer({ script: [textTurn("Hello over HTTP.")] });
try {
  const agent = createBareAgent({ apiKey: "smoke", baseURL: server.url, model: "smoke" });
  const result = await agent.prompt("hi");
  assert.equal(result.result, "Hello over HTTP.", JSON.stringify(result));
  assert.equal(server.requests.length, 1);
} finally {
  await server.close();
}
const scripted = createBareAgent({
  model: "smoke",
  modelClient: createScriptedModelClient({ script: [textTurn("Hello in process.")] }),
});
assert.equal((await scripted.prompt("hi")).result, "Hello in process.");
console.log("smoke ok: mock server and scripted client drive core");
