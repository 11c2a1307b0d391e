/**
 * `pnpm demo`: runs the README's headline program (src/headline.ts, the same text).
 *
 *   pnpm demo                       offline: a scripted model on the embedded Anthropic-compatible mock server
 *   DEEPSEEK_API_KEY=… pnpm demo    against DeepSeek's Anthropic-compatible endpoint
 *
 * DEEPSEEK_BASE_URL points it at another Anthropic-compatible endpoint.
 */
import { pathToFileURL } from "node:url";
import { startOfflineModel } from "./offline-model.js";

export async function runDemo(): Promise<void> {
  const env = process.env; // the headline program reads its connection from the environment
  const offline = env.DEEPSEEK_API_KEY ? undefined : await startOfflineModel();
  if (offline) {
    env.DEEPSEEK_API_KEY = "offline-demo-key";
    env.DEEPSEEK_BASE_URL = offline.url;
    console.log(`(offline: a scripted model at ${offline.url}; set DEEPSEEK_API_KEY to use DeepSeek)\n`);
  }
  try {
    await import("./headline.js");
  } finally {
    await offline?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runDemo().catch(error => {
    console.error(error);
    process.exitCode = 1;
  });
}
