/**
 * Human approval across requests: a web service whose agent may send money only after a person approves.
 *
 *   POST /chat     { session, message }            runs the agent; answers { status: "awaiting_approval", pending }
 *                                                  when a transfer waits for a person, else { status, answer }
 *   POST /approve  { session, toolUseId, approve, by, reason }
 *                                                  resumes the paused run (in any process) and answers the same way
 *
 * Between the two requests the service keeps nothing in memory: the paused run lives in the session's history
 * file (a JSONL history store), so the second request may reach another process.
 *
 *   pnpm --filter @agent-lattice/examples approvals     offline, against the embedded mock server
 */
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type ApprovalDecision,
  createBareAgent,
  createJsonlHistoryStore,
  type SDKResultMessage,
  startMockAnthropicServer,
  textTurn,
  tool,
  toolTurn,
} from "agent-lattice";
import { z } from "zod/v4";

interface Model {
  apiKey: string;
  baseURL: string | undefined;
  model: string;
}

/** The agent of one session: rebuilt for every request over the session's history file. */
function sessionAgent(model: Model, sessionsDir: string, session: string, ledger: string[]) {
  const transfer = tool(
    "transfer",
    "Send money to a customer",
    z.object({ to: z.string(), amount: z.number().positive() }),
    async ({ to, amount }) => {
      ledger.push(`${amount} to ${to}`);
      return { content: `Sent ${amount} EUR to ${to}.` };
    },
    { needsApproval: ({ amount }) => amount > 100 },
  );
  return createBareAgent({
    ...model,
    systemPrompt: "You are a payments assistant. Use the transfer tool to send money.",
    tools: [transfer],
    historyStore: createJsonlHistoryStore({ path: join(sessionsDir, `${session}.jsonl`) }),
  });
}

/** The JSON a handler answers with: the final answer, or what waits for a person. */
function reply(result: SDKResultMessage) {
  if (result.subtype === "awaiting_approval") {
    return {
      status: "awaiting_approval",
      pending: result.pendingApprovals!.map(({ toolUseId, toolName, input, reason }) => ({
        toolUseId,
        toolName,
        input,
        reason,
      })),
    };
  }
  return { status: result.subtype, answer: result.result };
}

/** The two handlers. `ledger` records the transfers that really ran. */
export function createPaymentsService(model: Model, sessionsDir: string, ledger: string[]): Server {
  return createServer(async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
      const agent = sessionAgent(model, sessionsDir, String(body.session), ledger);
      let result: SDKResultMessage;
      if (request.url === "/chat") {
        result = await agent.prompt(String(body.message));
      } else if (request.url === "/approve") {
        const decision: ApprovalDecision = body.approve
          ? { toolUseId: String(body.toolUseId), behavior: "approve", decidedBy: String(body.by) }
          : {
              toolUseId: String(body.toolUseId),
              behavior: "reject",
              decidedBy: String(body.by),
              message: String(body.reason),
            };
        result = await agent.prompt({ approvals: [decision] });
      } else {
        response.writeHead(404).end();
        return;
      }
      await agent.close({ keepWorkspace: true });
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply(result)));
    } catch (error) {
      response
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: String(error) }));
    }
  });
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    request.on("data", chunk => {
      text += chunk;
    });
    request.on("end", () => resolve(text));
    request.on("error", reject);
  });
}

async function post(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method: "POST", body: JSON.stringify(body) });
  return response.json();
}

export async function runApprovalsExample(
  write: (text: string) => void = text => process.stdout.write(text),
): Promise<number> {
  // Offline: the mock plays a model that asks for a transfer of 250, then confirms what the tool said.
  const mock = await startMockAnthropicServer({
    respond: request => {
      const last = request.body.messages.at(-1);
      const result = Array.isArray(last?.content)
        ? last.content.find((b: { type: string }) => b.type === "tool_result")
        : undefined;
      return result
        ? textTurn(`Done: ${typeof result.content === "string" ? result.content : "see above"}`)
        : toolTurn({ name: "transfer", input: { to: "Ada", amount: 250 } });
    },
  });
  const ledger: string[] = [];
  const service = createPaymentsService(
    { apiKey: "offline", baseURL: mock.url, model: "mock-model" },
    mkdtempSync(join(tmpdir(), "payments-sessions-")),
    ledger,
  );
  await new Promise<void>(resolve => service.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  try {
    const paused = await post(`${base}/chat`, { session: "ada-1", message: "Send Ada 250 EUR." });
    write(`POST /chat    → ${JSON.stringify(paused)}\n`);
    write(`ledger after /chat: ${JSON.stringify(ledger)}\n`);
    const toolUseId = paused.pending?.[0]?.toolUseId;
    const done = await post(`${base}/approve`, {
      session: "ada-1",
      toolUseId,
      approve: true,
      by: "alice@example.com",
    });
    write(`POST /approve → ${JSON.stringify(done)}\n`);
    write(`ledger after /approve: ${JSON.stringify(ledger)}\n`);
    return paused.status === "awaiting_approval" && done.status === "success" && ledger.length === 1 ? 0 : 1;
  } finally {
    await new Promise(resolve => service.close(resolve));
    await mock.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  process.exitCode = await runApprovalsExample();
