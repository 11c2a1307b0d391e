/** JSON-RPC error codes the MCP SDK uses for its own failures. */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/** Why a call did not produce a result, as decided by the handler that made it. */
export interface CallFailure {
  error: unknown;
  server: string;
  tool: string;
  timeoutMs: number;
  /** Our own deadline fired. */
  timedOut: boolean;
  /** The query's signal was aborted. */
  cancelled: boolean;
  /** Set when the connection is known to be gone: why (e.g. "its process exited (code 1)"). */
  closedBecause: string | undefined;
}

/** The text of the is_error tool_result the model reads when an MCP call failed. */
export function describeCallFailure(failure: CallFailure): string {
  const { error, server, tool } = failure;
  const code = (error as { code?: unknown } | null)?.code;
  const message = messageOf(error);
  if (failure.cancelled)
    return `The call to MCP tool "${tool}" on server "${server}" was cancelled: the query was aborted.`;
  if (failure.timedOut || code === REQUEST_TIMEOUT) {
    return (
      `MCP tool "${tool}" on server "${server}" did not answer within ${failure.timeoutMs} ms, so the call was ` +
      "cancelled. It may still have had an effect. Try a smaller request; the host can raise timeoutMs."
    );
  }
  if (message === "Not connected") {
    return `MCP server "${server}" is not connected, so tool "${tool}" did not run. The host must reconnect it.`;
  }
  if (failure.closedBecause !== undefined || code === CONNECTION_CLOSED) {
    const why = failure.closedBecause ? `: ${failure.closedBecause}` : "";
    return (
      `MCP server "${server}" stopped while tool "${tool}" was running${why}. The call's outcome is unknown, and ` +
      "this server's tools cannot be used until the host reconnects it."
    );
  }
  if (isValidationError(error)) {
    return (
      `MCP server "${server}" returned a malformed result for tool "${tool}": ${issuesOf(error)}. This is a ` +
      "bug in the server; the call may or may not have taken effect."
    );
  }
  if (isUnauthorized(error)) {
    return `MCP server "${server}" refused tool "${tool}": authorization failed (${message}). The host must re-authorize this connection.`;
  }
  if (typeof code === "number")
    return `MCP server "${server}" rejected the call to tool "${tool}": ${message}`;
  return `Calling MCP tool "${tool}" on server "${server}" failed: ${message}`;
}

/** The error's message, with the underlying cause when it says more (`fetch failed (ECONNREFUSED)`). */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail =
    typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : "";
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
}

/** The SDK validates results with zod: a result that does not fit the MCP schema rejects with its issues. */
function isValidationError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === "ZodError" || Array.isArray((error as { issues?: unknown }).issues))
  );
}

/** Zod issues as `content.0: …` lines, instead of the JSON dump zod puts in its message. */
function issuesOf(error: unknown): string {
  const issues =
    (error as { issues?: Array<{ path?: PropertyKey[]; code?: string; message?: string }> }).issues ?? [];
  const lines = issues.slice(0, 5).map(issue => {
    const path = (issue.path ?? []).map(String).join(".") || "result";
    const what =
      issue.code === "invalid_union"
        ? "matches none of the MCP content block shapes"
        : (issue.message ?? "is invalid");
    return `${path} ${what}`;
  });
  return truncate(lines.join("; ") || messageOf(error), 500);
}

function isUnauthorized(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === "UnauthorizedError" ||
    error.constructor?.name === "UnauthorizedError" ||
    (error as { code?: unknown }).code === 401
  );
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
