import { createRequire } from "node:module";
import type Picomatch from "picomatch";

let loaded: typeof Picomatch | undefined;

/**
 * picomatch, loaded on first use: it takes ~11 ms to load, every createAgent() installs these tools, and most
 * sessions never list, glob or grep. The sync require keeps the tools' call sites synchronous.
 */
export function picomatch(): typeof Picomatch {
  loaded ??= createRequire(import.meta.url)("picomatch") as typeof Picomatch;
  return loaded;
}
