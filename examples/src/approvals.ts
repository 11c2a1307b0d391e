/**
 * Human approval across requests: a web service whose agent may send money only after a person approves.
 *
 *   POST /chat     { session, message }            runs the agent; answers { status: "awaiting_approval", pending }
 *                                                  when a transfer waits for a person, else { status, answer }
 *   POST /approve  { session, pending: { toolUseId, digest }, approve, by, reason }
 *                                                  resumes the paused run (in any process) and answers the same way
 *
 * Between the two requests the service keeps nothing in memory: the paused run lives in the session's history
 * file (a JSONL history store), so the second request may reach another process. The approver's client sends back
 * the `digest` of the pending call it showed: the resume runs the call only if it is still exactly what the person
 * saw, even if someone edited the history file in between.
 *
 * Authentication belongs in front of both handlers, and is left out here: who may chat in a session, and who may
 * approve its transfers — in a real service `by` is the authenticated approver, not a field of the body.
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
  approveCall,
  createBareAgent,
  createJsonlHistoryStore,
  rejectCall,
  type SDKResultMessage,
  tool,
} from "agent-lattice";
import { startMockAnthropicServer, textTurn, toolTurn } from "agent-lattice/testing";
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
      pending: result.pendingApprovals!.map(({ toolUseId, toolName, input, reason, digest }) => ({
        toolUseId,
        toolName,
        input,
        reason,
        digest,
      })),
    };
  }
  return { status: result.subtype, answer: result.result };
}

/** Request bodies, validated before anything runs: a session id names a file, so it is a plain identifier. */
const session = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a session id is 1-64 letters, digits, _ or -");
const ChatRequest = z.object({ session, message: z.string().min(1).max(20_000) });
const ApproveRequest = z.object({
  session,
  pending: z.object({ toolUseId: z.string().min(1).max(200), digest: z.string().regex(/^[0-9a-f]{64}$/) }),
  approve: z.boolean(),
  by: z.string().min(1).max(200),
  reason: z.string().max(2_000).optional(),
});

/** The two handlers. `ledger` records the transfers that really ran. */
export function createPaymentsService(model: Model, sessionsDir: string, ledger: string[]): Server {
  return createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const answer = (status: number, body: unknown): void => {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    if (request.method !== "POST" || (request.url !== "/chat" && request.url !== "/approve")) {
      response.writeHead(404).end();
      return;
    }
    // Authenticate the caller here (and, for /approve, check that they may approve this session's transfers).
    let body: unknown;
    try {
      body = JSON.parse(await readBody(request));
    } catch {
      return answer(400, { error: "the body must be JSON" });
    }
    const parsed = (request.url === "/chat" ? ChatRequest : ApproveRequest).safeParse(body);
    if (!parsed.success) return answer(400, { error: z.prettifyError(parsed.error) });
    const agent = sessionAgent(model, sessionsDir, parsed.data.session, ledger);
    try {
      let result: SDKResultMessage;
      if ("message" in parsed.data) {
        result = await agent.prompt(parsed.data.message);
      } else {
        const { pending, approve, by, reason } = parsed.data;
        const decision = approve
          ? approveCall(pending, { decidedBy: by })
          : rejectCall(pending, { decidedBy: by, ...(reason ? { message: reason } : {}) });
        result = await agent.prompt({ approvals: [decision] });
      }
      answer(200, reply(result));
    } catch (error) {
      // A refused resume (the call changed since the person saw it, a stale or unknown approval) is a conflict.
      answer(409, { error: String(error), code: (error as { code?: unknown }).code });
    } finally {
      await agent.close({ keepWorkspace: true });
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
    // The approver's client was shown paused.pending[0] and sends back what identifies it: its id and digest.
    const { toolUseId, digest } = paused.pending?.[0] ?? {};
    const done = await post(`${base}/approve`, {
      session: "ada-1",
      pending: { toolUseId, digest },
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
