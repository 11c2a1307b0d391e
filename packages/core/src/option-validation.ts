import { InvalidOptionError } from "./errors.js";

/**
 * Strict option validation: an unknown key throws at assembly time, so a typo or an option that only a
 * newer SDK knows fails fast instead of silently doing nothing.
 */
export function assertKnownOptions(
  options: object | undefined,
  known: ReadonlySet<string>,
  label: string,
  prefix = "",
): void {
  if (options === undefined || options === null) return;
  if (typeof options !== "object") {
    throw new InvalidOptionError(`${prefix}${label}: expected an options object, got ${typeof options}.`);
  }
  for (const key of Object.keys(options)) {
    if (!known.has(key)) {
      throw new InvalidOptionError(
        `${prefix}${label}: unknown option "${key}". Check for a typo, or upgrade the SDK if this option was added in a newer version.`,
      );
    }
  }
}

export function assertPositiveInteger(value: unknown, label: string): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
    throw new InvalidOptionError(`${label} must be a positive integer, got ${JSON.stringify(value)}.`);
  }
}

export function assertBoolean(value: unknown, label: string): void {
  if (value === undefined || typeof value === "boolean") return;
  throw new InvalidOptionError(`${label} must be true or false, got ${JSON.stringify(value)}.`);
}

/**
 * An endpoint must be an absolute http(s) URL: "api.deepseek.com/anthropic" (no scheme) would otherwise be taken
 * as a relative path and fail only at the first request, as a connection error.
 */
export function assertHttpUrl(value: unknown, label: string): void {
  if (value === undefined) return;
  let protocol: string | undefined;
  if (typeof value === "string") {
    try {
      protocol = new URL(value).protocol;
    } catch {
      protocol = undefined;
    }
  }
  if (protocol === "http:" || protocol === "https:") return;
  const shown = typeof value === "string" ? JSON.stringify(value) : typeof value;
  const fix =
    typeof value === "string" && value.trim() !== "" && !value.includes("://")
      ? ` Add the scheme: "https://${value.trim().replace(/^\/+/, "")}".`
      : "";
  throw new InvalidOptionError(
    `${label} must be an absolute http(s) URL such as "https://api.deepseek.com/anthropic", got ${shown}.${fix}`,
  );
}
