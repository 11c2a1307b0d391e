import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { TraceViewerAssetsError } from "./errors.js";

/** The page's script and stylesheet, inlined into every page, with the CSP hashes that allow exactly them. */
export interface PageAssets {
  script: string;
  style: string;
  scriptHash: string;
  styleHash: string;
}

let cached: PageAssets | undefined;

/**
 * Built by scripts/build-page.mjs next to the bundled entry (dist/). From the TypeScript sources (our tests run
 * them) the same files are found in ../dist.
 */
const CANDIDATE_DIRECTORIES = ["./", "../dist/"];

function read(name: string): string {
  for (const directory of CANDIDATE_DIRECTORIES) {
    try {
      return readFileSync(new URL(`${directory}${name}`, import.meta.url), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  throw new TraceViewerAssetsError(`${name} not found next to ${new URL(".", import.meta.url).pathname}`);
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}

export function pageAssets(): PageAssets {
  if (cached) return cached;
  const script = read("viewer-page.js");
  const style = read("viewer-page.css");
  // The build checks this too; checked again here because a hash allows whatever text it was computed over.
  if (/<\/(script|style)|<!--/i.test(script + style))
    throw new TraceViewerAssetsError("the page assets contain text that would end their element");
  cached = { script, style, scriptHash: sha256(script), styleHash: sha256(style) };
  return cached;
}
