// Install check 3 (U2), run by packaging/test/install-alone.test.ts: this package installed from the packed
// tarballs beside @agent-lattice/core alone (no workspace, no umbrella). An agent's query is traced through the
// real langsmith client to a local stand-in for the LangSmith API, which must receive the root run with the
// prompt, its model turn and its tool call.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { gunzipSync } from "node:zlib";
import { createBareAgent, tool } from "@agent-lattice/core";
import { createLangSmithContextTracer } from "@agent-lattice/tracing-langsmith";

const received = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", chunk => chunks.push(chunk));
  req.on("end", () => {
    let body = Buffer.concat(chunks);
    if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
    received.push({ method: req.method, path: req.url, body: body.toString("utf8") });
    res.writeHead(req.url === "/info" ? 200 : 202, { "content-type": "application/json" });
    // /info: batch JSON (POST /runs/batch) rather than multipart, so the bodies read as plain JSON.
    res.end(
      req.url === "/info" ? JSON.stringify({ batch_ingest_config: { use_multipart_endpoint: false } }) : "{}",
    );
  });
});
await new Promise(resolve => server.listen(0, "127.0.0.1", resolve));
const apiUrl = `http://127.0.0.1:${server.address().port}`;

const replies = [
  [{ type: "tool_use", id: "t1", name: "add", input: { a: 2, b: 3 } }],
  [{ type: "text", text: "2 + 3 = 5" }],
];
const modelClient = {
  async create() {
    const content = replies.shift();
    return {
      message: { role: "assistant", content },
      stopReason: content[0].type === "tool_use" ? "tool_use" : "end_turn",
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  },
};
// No zod here (it is not a dependency of this install): a schema as { parse(input), jsonSchema }.
const numbers = {
  jsonSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
  parse: input => input,
};
const add = tool("add", "Adds two numbers", numbers, ({ a, b }) => String(a + b));
const tracer = createLangSmithContextTracer({
  apiUrl,
  apiKey: "smoke-key",
  projectName: "smoke",
  failOnError: true,
});
try {
  const agent = createBareAgent({ model: "smoke", modelClient, tools: [add], tracer });
  const result = await agent.prompt("What is 2 + 3? (smoke prompt)", { stream: false });
  assert.equal(result.result, "2 + 3 = 5", JSON.stringify(result));
  await tracer.close();
  const runs = received.filter(request => request.path.startsWith("/runs")).map(request => request.body);
  assert.ok(runs.length > 0, `nothing reached /runs: ${JSON.stringify(received.map(r => r.path))}`);
  const all = runs.join("\n");
  assert.match(all, /smoke prompt/, "the root run's input is missing");
  assert.match(all, /"run_type":"llm"/, "the model turn is missing");
  assert.match(all, /"run_type":"tool"/, "the tool call is missing");
  console.log(`smoke ok: a query reached the local LangSmith API (${runs.length} requests)`);
} finally {
  server.close();
}
