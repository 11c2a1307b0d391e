import { canonicalJson, nodeCrypto } from "./approval-digest.js";
import type { ApprovalDecision, RecordedDecision } from "./approvals.js";
import { InvalidOptionError } from "./errors.js";

/**
 * Decisions recorded in the history for a later resume (a resume that decided only some calls of a batch) are
 * written by this agent and read back from a store that others may be able to write. A digest alone cannot tell
 * a recorded decision from an injected one — anyone can compute it — so each recorded decision carries a seal: an
 * HMAC-SHA256 over its canonical JSON with the agent's approval key. A decision whose seal does not verify is
 * refused. The key is `AgentOptions.approvalKey` (shared by every process that resumes the session) or, without
 * one, random per Agent object and never stored: then only the Agent that recorded a decision honours it.
 */

export type ApprovalKey = Uint8Array;

/** Shortest accepted key: 256 bits, the HMAC-SHA256 block strength. */
export const MIN_APPROVAL_KEY_BYTES = 32;

/** The agent's approval key from its options, or a fresh random one. */
export function resolveApprovalKey(key: string | Uint8Array | undefined): ApprovalKey {
  if (key === undefined) return globalThis.crypto.getRandomValues(new Uint8Array(MIN_APPROVAL_KEY_BYTES));
  return typeof key === "string" ? new TextEncoder().encode(key) : new Uint8Array(key);
}

/** Option validation: a secret of at least 32 bytes. */
export function assertApprovalKey(key: unknown, label: string): void {
  if (key === undefined) return;
  const bytes =
    typeof key === "string"
      ? new TextEncoder().encode(key).length
      : key instanceof Uint8Array
        ? key.length
        : -1;
  if (bytes < MIN_APPROVAL_KEY_BYTES) {
    throw new InvalidOptionError(
      `${label} must be a secret string or Uint8Array of at least ${MIN_APPROVAL_KEY_BYTES} bytes ` +
        `(got ${bytes < 0 ? typeof key : `${bytes} bytes`}), for example crypto.randomBytes(32).toString("base64") ` +
        "kept in your secret store. Give every process that resumes this session's approvals the same key.",
    );
  }
}

/** The decision as recorded in a pause record. */
export function sealDecision(key: ApprovalKey, decision: ApprovalDecision): RecordedDecision {
  const { seal: _ignored, ...plain } = decision as RecordedDecision;
  return { ...plain, seal: sealOf(key, plain) };
}

/** True when a recorded decision carries this key's seal over exactly its content. */
export function sealVerifies(key: ApprovalKey, recorded: unknown): boolean {
  if (!recorded || typeof recorded !== "object") return false;
  const { seal, ...plain } = recorded as RecordedDecision;
  if (typeof seal !== "string") return false;
  let expected: string;
  try {
    expected = sealOf(key, plain);
  } catch {
    return false; // content with no JSON encoding was not sealed by us
  }
  const crypto = nodeCrypto();
  const given = Buffer.from(seal, "utf8");
  const wanted = Buffer.from(expected, "utf8");
  return given.length === wanted.length && crypto.timingSafeEqual(given, wanted);
}

function sealOf(key: ApprovalKey, decision: object): string {
  return nodeCrypto()
    .createHmac("sha256", key)
    .update(canonicalJson({ v: 1, decision }), "utf8")
    .digest("base64url");
}
