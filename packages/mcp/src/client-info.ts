import { readFileSync } from "node:fs";

let version: string | undefined;

/** How this client introduces itself to servers: "agent-lattice" and this package's version. */
export function defaultClientInfo(): { name: string; version: string } {
  if (version === undefined) {
    try {
      // src/ and dist/ both sit next to package.json.
      const url = new URL("../package.json", import.meta.url);
      version = String(JSON.parse(readFileSync(url, "utf8")).version ?? "0.0.0");
    } catch {
      version = "0.0.0";
    }
  }
  return { name: "agent-lattice", version };
}
