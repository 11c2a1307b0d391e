// Issue 11 through the umbrella: the escape catalogue (several forms per root cause) run through the default
// createAgent() — the model calls the tool over HTTP against the mock server — and through a delegated grant
// (agentTool with workspaceGrants), with the sandbox and without it. The outside stays byte-identical.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type EscapeCase,
  escapeCases,
  type Layout,
  makeLayout,
  outsideOfRoot,
} from "../../builtin-tools/test/escape-cases.js";
import { mockProvider } from "./helpers.js";
import {
  agentTool,
  bubblewrapAvailableForTests,
  createAgent,
  createBuiltinWorkspaceProvider,
  textTurn,
  toolTurn,
} from "./security-helpers.js";

const temps: string[] = [];
/** Outside /tmp (the sandbox's /tmp is private and would hide the layout). */
function hostTempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}
const cwd = process.cwd();
afterEach(() => {
  process.chdir(cwd);
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The same snapshot as the handler suite: paths with contents, modes, owners and link targets. */
function snapshot(dir: string): Record<string, string> {
  const { lstatSync, readdirSync, readlinkSync } = require("node:fs") as typeof import("node:fs");
  const out: Record<string, string> = {};
  const visit = (path: string, relative: string) => {
    const info = lstatSync(path);
    const meta = `${info.uid}:${info.gid}:${(info.mode & 0o7777).toString(8)}`;
    if (info.isSymbolicLink()) out[relative] = `link:${readlinkSync(path)}`;
    else if (info.isDirectory()) {
      out[relative] = `dir:${meta}`;
      for (const name of readdirSync(path).sort()) visit(join(path, name), `${relative}/${name}`);
    } else out[relative] = `file:${meta}:${readFileSync(path).toString("base64")}`;
  };
  visit(dir, ".");
  return out;
}

type Mode = "analyser" | "sandbox";
const channelCases = escapeCases.filter(attempt => attempt.channels);
const matrix = channelCases.flatMap(attempt =>
  (attempt.tool === "Bash" ? (["analyser", "sandbox"] as const) : (["analyser"] as const)).map(mode => ({
    attempt,
    mode,
    label: `${attempt.cause} — ${attempt.tool} [${mode}]: ${attempt.name}`,
  })),
);

function bashOptions(attempt: EscapeCase, p: Layout, mode: Mode) {
  return { sandbox: mode === "sandbox", env: { HOME: p.home, ...attempt.env?.(p) } };
}

function requireSandboxIfNeeded(mode: Mode, ctx: { skip: (note?: string) => never }) {
  if (mode !== "sandbox") return;
  const status = bubblewrapAvailableForTests();
  if (status.usable) return;
  if (process.env.CI === "true") throw new Error(`CI must run the sandbox tests: ${status.reason}`);
  ctx.skip(`bubblewrap is not usable here: ${status.reason}`);
}

interface ToolResultBlock {
  content: string;
  is_error?: boolean;
}
const lastToolResult = (body: { messages: Array<{ content: unknown }> }) =>
  (body.messages.at(-1)!.content as ToolResultBlock[])[0]!;

function expectRefused(result: ToolResultBlock, attempt: EscapeCase, mode: Mode, allowedRoot: string) {
  if (mode !== "analyser") return;
  expect(result.is_error, result.content).toBe(true);
  if (attempt.refusal) return;
  const details = JSON.parse(result.content);
  expect(details).toMatchObject({ code: "permission_denied", tool: attempt.tool });
  expect(details.allowedRoots).toContain(allowedRoot);
}

describe("security through createAgent(): the model's tool calls cannot write outside", () => {
  it("runs several forms of every root cause through this channel", () => {
    const causes = new Map<string, number>();
    for (const attempt of channelCases) causes.set(attempt.cause, (causes.get(attempt.cause) ?? 0) + 1);
    expect(causes.size).toBe(9);
    for (const [cause, count] of causes) expect(count, cause).toBeGreaterThanOrEqual(2);
  });

  it.for(matrix)("$label", async ({ attempt, mode }, ctx) => {
    requireSandboxIfNeeded(mode, ctx);
    const p = makeLayout(hostTempDir("al-escape-"));
    attempt.setup?.(p);
    process.chdir(p.ws);
    const server = await mockProvider([
      toolTurn({ name: attempt.tool, input: attempt.input(p) }),
      textTurn("done"),
    ]);
    // The private workspace is base/ws: the provider's root is base and the session is named "ws".
    const agent = createAgent({
      apiKey: "k",
      baseURL: server.url,
      model: "m",
      sessionId: "ws",
      workspace: createBuiltinWorkspaceProvider({ root: p.base, bash: bashOptions(attempt, p, mode) }),
    });
    const before = outsideOfRoot(p, snapshot);
    const result = await agent.prompt("try it", {
      stream: false,
      ...(attempt.grants ? { permissions: { workspaceGrants: attempt.grants(p) } } : {}),
    });
    expect(result.subtype).toBe("success");
    expect(outsideOfRoot(p, snapshot)).toEqual(before);
    expect(readFileSync(`${p.outside}/existing.txt`, "utf8")).toBe("original");
    expectRefused(lastToolResult(server.requests[1]!.body), attempt, mode, p.ws);
  });
});

/** The case as a delegated member sees it: its own workspace elsewhere, base/ws reachable only through the grant. */
function delegated(attempt: EscapeCase, p: Layout): Record<string, unknown> {
  const input = attempt.input(p);
  if (attempt.tool === "Bash")
    return { ...input, command: `cd ${p.ws} || exit 1\n${input.command as string}` };
  const path = input.file_path as string;
  return { ...input, file_path: path.startsWith("/") ? path : `${p.ws}/${path}` };
}

describe("security through a delegated grant: a member holding a grant cannot write outside it", () => {
  it.for(matrix)("$label", async ({ attempt, mode }, ctx) => {
    requireSandboxIfNeeded(mode, ctx);
    const p = makeLayout(hostTempDir("al-delegate-"));
    attempt.setup?.(p);
    const grant = { root: p.ws, access: ["write" as const], reason: "shared deliverables" };
    const memberServer = await mockProvider([
      toolTurn({ name: attempt.tool, input: delegated(attempt, p) }),
      textTurn("member done"),
    ]);
    const member = createAgent({
      apiKey: "k",
      baseURL: memberServer.url,
      model: "m",
      name: "member",
      workspace: createBuiltinWorkspaceProvider({
        root: hostTempDir("al-member-"),
        bash: bashOptions(attempt, p, mode),
      }),
    });
    const leadServer = await mockProvider([
      toolTurn({ name: "member", input: { task: "Write the deliverable.", workspaceGrants: [grant] } }),
      textTurn("lead done"),
    ]);
    const lead = createAgent({
      apiKey: "k",
      baseURL: leadServer.url,
      model: "m",
      workspace: createBuiltinWorkspaceProvider({ root: hostTempDir("al-lead-") }),
      tools: [agentTool("member", member, { description: "A member that writes deliverables." })],
    });
    const before = outsideOfRoot(p, snapshot);
    await lead.prompt("delegate", { stream: false, permissions: { workspaceGrants: [grant] } });
    expect(outsideOfRoot(p, snapshot)).toEqual(before);
    expect(readFileSync(`${p.outside}/existing.txt`, "utf8")).toBe("original");
    expect(memberServer.requests).toHaveLength(2);
    expectRefused(lastToolResult(memberServer.requests[1]!.body), attempt, mode, p.ws);
  });
});
