import { InvalidOptionError } from "./errors.js";
import { toJsonSchema, validateWithSchema } from "./schema.js";
import type { SDKResultMessage } from "./sdk-messages.js";
import type { OutputSchema } from "./structured-output.js";

/**
 * The schema a delegation tool holds its child to: the explicit copy, else the target's declaration. An explicit
 * copy must match the declaration — by reference, then by derived JSON Schema — or assembly fails, so drift
 * between parent and child is caught before any call.
 */
export function resolveOutputContract(
  owner: string,
  explicit: OutputSchema | undefined,
  declared: OutputSchema | undefined,
): OutputSchema | undefined {
  if (!explicit || !declared || explicit === declared) return explicit ?? declared;
  const same = stableJson(toJsonSchema(explicit, owner)) === stableJson(toJsonSchema(declared, owner));
  if (!same) {
    throw new InvalidOptionError(
      `${owner}: outputSchema does not match the target's declared outputSchema (compared by reference, then by ` +
        "derived JSON Schema). Share one schema instance between the child agent and this tool, or omit the " +
        "tool's outputSchema: it is inherited from the target.",
    );
  }
  return explicit;
}

/** What the parent model reads from a finished child run. */
export type ChildOutput = { ok: true; content: string } | { ok: false; content: string };

/**
 * Turns a child's result into the ask tool result: with a schema, the validated structured result as JSON (or a
 * `child_output_invalid:` error); without one, the structured result as-is when present, else the text.
 */
export async function childOutput(
  result: SDKResultMessage,
  schema: OutputSchema | undefined,
): Promise<ChildOutput> {
  if (schema) {
    if (result.subtype !== "success" || result.structuredResult === undefined) {
      const why =
        result.subtype !== "success"
          ? `the child run ended with ${result.subtype}${result.error ? `: ${result.error.message}` : ""}`
          : "the child run ended without a structured result";
      return {
        ok: false,
        content: `child_output_invalid: ${why}. Retry with a clearer task, or proceed without it.`,
      };
    }
    const checked = await validateWithSchema(schema, result.structuredResult);
    if (!checked.ok) {
      return {
        ok: false,
        content: `child_output_invalid: the structured result failed the schema: ${checked.message}`,
      };
    }
    return { ok: true, content: JSON.stringify(checked.value) };
  }
  if (result.subtype === "success") {
    return {
      ok: true,
      content:
        result.structuredResult !== undefined ? JSON.stringify(result.structuredResult) : result.result,
    };
  }
  const reason = result.error ? `${result.error.name}: ${result.error.message}` : result.subtype;
  return { ok: false, content: `child_error: the delegated run ended with ${result.subtype} (${reason}).` };
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${stableJson(entry)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
