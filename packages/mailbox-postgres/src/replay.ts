import { json, type LoggedTransition, type MessageRow } from "./rows.js";

/**
 * How a retried call tells whether its earlier try committed, when the connection dropped before the answer
 * arrived. Each change the mailbox retries is keyed by something only that call knows, so an earlier commit is
 * recognised and never applied twice:
 * - a claim by its claim token (made by the client): a row processing under that token is the earlier claim;
 * - a settle (complete, fail, release) by its claim token and target status, which the row's transition log keeps;
 *   the messages it sent are found beside it (created in the same transaction, at the settle's logged time);
 * - a cancel by its claim token (or, without one, by the row having gone pending → cancelled);
 * - a send of a new conversation by its thread id (a fresh UUID the client chose for it).
 */

/** A message a settle sends, as the schema's functions take it. */
export interface SentPayload {
  from: string;
  to: string;
  kind: string;
  content: string;
}

function log(history: unknown): LoggedTransition[] {
  const entries = json(history);
  return Array.isArray(entries) ? (entries as LoggedTransition[]) : [];
}

/** The transition an earlier settle with this claim token wrote (processing → `status`), if it committed. */
export function settledWith(history: unknown, token: string, status: string): LoggedTransition | undefined {
  return log(history).find(
    ([from, to, , logged]) => from === "processing" && to === status && logged === token,
  );
}

/** Whether `row` was cancelled the way this cancel would have: under this claim token, or from pending without one. */
export function cancelledLike(row: MessageRow, token: string | null): boolean {
  if (row.status !== "cancelled") return false;
  const last = log(row.history).at(-1);
  return !!last && last[1] === "cancelled" && (token === null ? last[0] === "pending" : last[3] === token);
}

/**
 * The rows an earlier settle wrote for `sends`, in order, among `candidates` (rows created in the same millisecond
 * after the settled message, to the same recipients): each send takes the first unused row from the same sender to
 * the same recipient with the same kind and content.
 */
export function matchSent(sends: readonly SentPayload[], candidates: readonly MessageRow[]): MessageRow[] {
  const unused = [...candidates];
  const found: MessageRow[] = [];
  for (const send of sends) {
    const index = unused.findIndex(
      row =>
        row.from_mailbox === send.from &&
        row.to_mailbox === send.to &&
        row.kind === send.kind &&
        row.content === send.content,
    );
    if (index < 0) continue;
    found.push(unused[index]!);
    unused.splice(index, 1);
  }
  return found;
}
