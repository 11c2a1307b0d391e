// Install check 3 (U2), run by packaging/test/install-alone.test.ts: this package installed alone beside
// @agent-lattice/core from the packed tarballs (no workspace), driven through core's agent loop.
// A hand-written ModelClient plays the model (no test kit is installed here): it calls Write, then Read.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBuiltinTools } from "@agent-lattice/builtin-tools";
import { createBareAgent } from "@agent-lattice/core";

const dir = mkdtempSync(join(tmpdir(), "smoke-builtin-tools-"));
const replies = [
  [{ type: "tool_use", id: "t1", name: "Write", input: { file_path: "notes.md", content: "hello\n" } }],
  [{ type: "tool_use", id: "t2", name: "Read", input: { file_path: "notes.md" } }],
  [{ type: "text", text: "done" }],
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
try {
  const agent = createBareAgent({
    model: "smoke",
    modelClient,
    tools: createBuiltinTools({ cwd: dir, allowedDirectories: [dir] }),
  });
  const messages = [];
  for await (const message of agent.query("write then read", { stream: false })) messages.push(message);
  const result = messages.at(-1);
  assert.equal(result.subtype, "success", JSON.stringify(result));
  assert.equal(readFileSync(join(dir, "notes.md"), "utf8"), "hello\n");
  const toolResults = messages.filter(m => m.type === "user").flatMap(m => m.message.content);
  assert.match(String(toolResults[1].content), /hello/);
  console.log("smoke ok: Write and Read ran through core's loop");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
