// Local stand-ins for the LangSmith and Langfuse ingestion endpoints, for benchmarks, in their own process so that
// their CPU time is not charged to the client being measured. They accept what the tracing clients send (LangSmith:
// GET /info, POST /runs/multipart and /runs/batch; Langfuse: POST /api/public/otel/v1/traces) without decoding it,
// and count requests and bytes, reported over IPC on request.
import { createServer } from "node:http";

const counts = { langsmith: { requests: 0, bytes: 0 }, langfuse: { requests: 0, bytes: 0 } };
const INFO = JSON.stringify({
  version: "0.12.0",
  batch_ingest_config: { use_multipart_endpoint: true, size_limit: 100, size_limit_bytes: 20_971_520 },
  instance_flags: {},
});

const server = createServer((req, res) => {
  let bytes = 0;
  req.on("data", chunk => (bytes += chunk.length));
  req.on("end", () => {
    if (req.url === "/info") {
      res.writeHead(200, { "content-type": "application/json" }).end(INFO);
      return;
    }
    const target = req.url?.startsWith("/api/public/otel") ? counts.langfuse : counts.langsmith;
    target.requests += 1;
    target.bytes += bytes;
    res.writeHead(req.url?.startsWith("/runs") ? 202 : 200, { "content-type": "application/json" }).end("{}");
  });
});
server.listen(0, "127.0.0.1", () => process.send?.({ url: `http://127.0.0.1:${server.address().port}` }));
process.on("message", message => {
  if (message === "counts") process.send?.({ counts });
});
process.on("disconnect", () => server.close(() => process.exit(0)));
