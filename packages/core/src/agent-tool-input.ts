import { isAbsolute } from "node:path";
import { isWithin, resolvePhysical } from "./fs/physical-path.js";
import { allowedRootsOf } from "./fs/write-scope.js";
import type { JsonSchemaObject } from "./model-client.js";
import type { QueryPermissions, WorkspaceGrant } from "./workspace.js";

export type DelegationMode = "ask" | "handoff" | "observe";

/** The default input of agentTool()/delegateTool() tools (without `mode` for delegateTool). */
export interface AgentToolInput {
  mode?: DelegationMode;
  task: string;
  expectedOutput?: string;
  acceptanceCriteria?: string[];
  workspaceGrants?: WorkspaceGrant[];
}

const GRANT_SCHEMA = {
  type: "object",
  properties: {
    root: { type: "string", description: "Absolute directory the member may write under." },
    access: { type: "array", items: { type: "string", enum: ["write"] } },
    reason: { type: "string" },
  },
  required: ["root", "access"],
};

/** JSON Schema of the default input. `withMode` is false for delegateTool(), whose mode the runtime picks. */
export function defaultInputJsonSchema(withMode: boolean): JsonSchemaObject {
  return {
    type: "object",
    properties: {
      ...(withMode
        ? {
            mode: {
              type: "string",
              enum: ["ask", "handoff", "observe"],
              description:
                "ask (default): wait for the result. handoff: queue the work and get a receipt (team runtime only). observe: watch without acting (needs host support).",
            },
          }
        : {}),
      task: { type: "string", description: "The task, self-contained: everything the agent needs to do it." },
      expectedOutput: { type: "string", description: "What to deliver, in what form." },
      acceptanceCriteria: {
        type: "array",
        items: { type: "string" },
        description: "How the result will be judged.",
      },
      workspaceGrants: {
        type: "array",
        items: GRANT_SCHEMA,
        description: "Shared directories the agent may write to; must be within your own grants.",
      },
    },
    required: ["task"],
  };
}

/** Validates the model's input against the default shape; throws an Error whose message names the problem. */
export function parseAgentToolInput(input: unknown, withMode: boolean): AgentToolInput {
  if (!input || typeof input !== "object" || Array.isArray(input))
    throw new Error("input must be an object with a task");
  const value = input as Record<string, unknown>;
  const allowed = new Set([
    "task",
    "expectedOutput",
    "acceptanceCriteria",
    "workspaceGrants",
    ...(withMode ? ["mode"] : []),
  ]);
  for (const key of Object.keys(value)) if (!allowed.has(key)) throw new Error(`unknown field "${key}"`);
  if (typeof value.task !== "string" || value.task.trim() === "")
    throw new Error("task: a non-empty string is required");
  if (value.mode !== undefined && !["ask", "handoff", "observe"].includes(value.mode as string)) {
    throw new Error('mode: must be "ask", "handoff" or "observe"');
  }
  if (value.expectedOutput !== undefined && typeof value.expectedOutput !== "string") {
    throw new Error("expectedOutput: must be a string");
  }
  if (
    value.acceptanceCriteria !== undefined &&
    (!Array.isArray(value.acceptanceCriteria) ||
      value.acceptanceCriteria.some(entry => typeof entry !== "string"))
  ) {
    throw new Error("acceptanceCriteria: must be an array of strings");
  }
  if (value.workspaceGrants !== undefined) {
    if (!Array.isArray(value.workspaceGrants)) throw new Error("workspaceGrants: must be an array");
    for (const grant of value.workspaceGrants as Array<Record<string, unknown>>) {
      if (!grant || typeof grant.root !== "string" || !Array.isArray(grant.access)) {
        throw new Error('workspaceGrants: each grant needs { root, access: ["write"], reason }');
      }
      if (grant.access.some(access => access !== "write"))
        throw new Error('workspaceGrants: access may only contain "write"');
    }
  }
  return value as unknown as AgentToolInput;
}

/** The child's prompt for a default-shaped call. */
export function renderTask(input: AgentToolInput, grants: readonly WorkspaceGrant[]): string {
  const parts = [input.task.trim()];
  if (input.expectedOutput) parts.push(`Expected output:\n${input.expectedOutput.trim()}`);
  if (input.acceptanceCriteria?.length) {
    parts.push(`Acceptance criteria:\n${input.acceptanceCriteria.map(entry => `- ${entry}`).join("\n")}`);
  }
  if (grants.length) {
    parts.push(
      `Shared workspace grants for this task (you may write under these directories):\n${grants
        .map(grant => `- ${grant.root}${grant.reason ? ` (${grant.reason})` : ""}`)
        .join("\n")}`,
    );
  }
  return parts.join("\n\n");
}

/**
 * A delegating caller can pass on only what it holds: a requested grant is accepted when its root lies within
 * one of the caller's own write grants, and rejected otherwise. Both are compared as physical paths with the same
 * resolution the write tools use (symlinks followed, no `..` after a missing component), so a link inside a held
 * root cannot smuggle out a grant to wherever it points; the accepted grant carries the physical root. A root that
 * cannot be resolved to one place is rejected.
 */
export function acceptGrants(
  requested: readonly WorkspaceGrant[] | undefined,
  caller: QueryPermissions,
): { accepted: WorkspaceGrant[]; rejected: WorkspaceGrant[] } {
  const held = allowedRootsOf({ roots: [], grants: caller.workspaceGrants ?? [] });
  const accepted: WorkspaceGrant[] = [];
  const rejected: WorkspaceGrant[] = [];
  for (const grant of requested ?? []) {
    const root = physicalOrUndefined(grant.root);
    if (root === undefined) {
      rejected.push(grant);
      continue;
    }
    (held.some(own => isWithin(root, own)) ? accepted : rejected).push({ ...grant, root });
  }
  return { accepted, rejected };
}

function physicalOrUndefined(root: unknown): string | undefined {
  if (typeof root !== "string" || !isAbsolute(root)) return undefined;
  try {
    return resolvePhysical(root);
  } catch {
    return undefined;
  }
}
