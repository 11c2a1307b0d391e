// Install check 3 (U2), run by packaging/test/install-alone.test.ts: this package installed from the packed
// tarballs beside @agent-lattice/core, with the OpenTelemetry pieces its README tells users to install
// (@langfuse/otel, @opentelemetry/api, @opentelemetry/sdk-trace-node) — no workspace, no umbrella. An agent's
// query is exported by the real LangfuseSpanProcessor to a local stand-in for Langfuse's OTLP endpoint, which must
// receive the query's root observation with the prompt, its generation and its tool call.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { gunzipSync } from "node:zlib";
import { createBareAgent, tool } from "@agent-lattice/core";
import { createLangfuseContextTracer } from "@agent-lattice/tracing-langfuse";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

const received = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", chunk => chunks.push(chunk));
  req.on("end", () => {
    let body = Buffer.concat(chunks);
    if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
    received.push({ path: req.url, type: req.headers["content-type"], body: body.toString("utf8") });
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
});
await new Promise(resolve => server.listen(0, "127.0.0.1", resolve));

const spanProcessor = new LangfuseSpanProcessor({
  baseUrl: `http://127.0.0.1:${server.address().port}`,
  publicKey: "pk-lf-smoke",
  secretKey: "sk-lf-smoke",
});
const provider = new NodeTracerProvider({ spanProcessors: [spanProcessor] });
provider.register();

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
const tracer = createLangfuseContextTracer({ spanProcessor, failOnError: true });
try {
  const agent = createBareAgent({ model: "smoke", modelClient, tools: [add], tracer });
  const result = await agent.prompt("What is 2 + 3? (smoke prompt)", { stream: false });
  assert.equal(result.result, "2 + 3 = 5", JSON.stringify(result));
  await tracer.close();
  const exports = received.filter(request => request.path === "/api/public/otel/v1/traces");
  assert.ok(
    exports.length > 0,
    `nothing reached the OTLP endpoint: ${JSON.stringify(received.map(r => r.path))}`,
  );
  const all = exports.map(request => request.body).join("\n");
  assert.match(all, /smoke prompt/, "the root observation's input is missing");
  assert.match(all, /"generation"/, "the model turn's generation is missing");
  assert.match(all, /"tool"/, "the tool call's observation is missing");
  console.log(`smoke ok: a query reached the local Langfuse OTLP endpoint (${exports.length} exports)`);
} finally {
  await provider.shutdown();
  server.close();
}
